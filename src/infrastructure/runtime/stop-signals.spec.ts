import { EventEmitter } from 'node:events';
import { onStopSignals } from './stop-signals';

describe('onStopSignals', () => {
  it('stops once, on the first SIGTERM or SIGINT; a repeated signal is reported, not obeyed', () => {
    const target = new EventEmitter();
    const stops: string[] = [];
    const repeated: string[] = [];
    onStopSignals(
      async (signal) => void stops.push(signal),
      (signal) => repeated.push(signal),
      target,
    );
    target.emit('SIGTERM', 'SIGTERM');
    target.emit('SIGTERM', 'SIGTERM');
    target.emit('SIGINT', 'SIGINT');
    expect({ stops, repeated }).toEqual({ stops: ['SIGTERM'], repeated: ['SIGTERM', 'SIGINT'] });
    // Still listening: a signal that found no listener would end the process at once.
    expect(target.listenerCount('SIGTERM')).toBe(1);
    expect(target.listenerCount('SIGINT')).toBe(1);
  });
});
