/**
 * Runs `stop` once, on the first SIGTERM or SIGINT. A signal repeated while it runs is reported and
 * otherwise ignored: the graceful stop (calls in flight finishing, the database last) is not cut
 * short by an orchestrator or an operator sending the signal twice; SIGKILL ends a process that must
 * end now. With `process.once`, the second signal found no listener and killed the process at once.
 */
/** What the handlers are set on: the process, or any emitter of the two signals' names (the unit spec's). */
export interface SignalSource {
  on(signal: 'SIGTERM' | 'SIGINT', listener: (signal: NodeJS.Signals) => void): unknown;
}

export function onStopSignals(
  stop: (signal: NodeJS.Signals) => Promise<void>,
  repeated: (signal: NodeJS.Signals) => void,
  target: SignalSource = process,
): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return repeated(signal);
    stopping = true;
    void stop(signal);
  };
  target.on('SIGTERM', handle);
  target.on('SIGINT', handle);
}
