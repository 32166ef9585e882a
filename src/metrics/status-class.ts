/** The `status_class` label of the request counters: one rule for every counter. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Index of a status's class in STATUS_CLASSES; a value below 100 (not a status) counts as 5xx. */
export function statusClassIndex(status: number): number {
  if (status >= 500 || status < 100) return 3;
  if (status >= 400) return 2;
  if (status >= 300) return 1;
  return 0;
}

export function statusClass(status: number): StatusClass {
  return STATUS_CLASSES[statusClassIndex(status)]!;
}
