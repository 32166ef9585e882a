/** A URL as logs, banners and `--check` show it: without the `user:password@` part. */
export function withoutCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
