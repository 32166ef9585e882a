/**
 * The typed event the composition root hands a stage before its listeners
 * exist: nothing happens without a listener, every listener hears every later
 * emit in the order it subscribed, and `emit` works detached (passed as a callback).
 */
import { describe, expect, it } from 'vitest';
import { Topic } from '../../src/common/topic.js';

describe('Topic', () => {
  it('does nothing without a listener, then calls each listener in order with the arguments', () => {
    const heads = new Topic<[label: string, height: number]>();
    const emit = heads.emit;
    emit('before', 1);
    const heard: string[] = [];
    heads.on((label, height) => heard.push(`a:${label}:${height}`));
    heads.on((label, height) => heard.push(`b:${label}:${height}`));
    emit('after', 2);
    emit('again', 3);
    expect(heard).toEqual(['a:after:2', 'b:after:2', 'a:again:3', 'b:again:3']);
  });
});
