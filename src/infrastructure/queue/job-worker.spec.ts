import type { Logger } from '@nestjs/common';
import type { JobWithMetadata } from 'pg-boss';
import { defineJob } from './job-definition';
import { JobSource, JobWorker } from './job-worker';

const JOB = defineJob<{ n: number }>({ name: 'test-job', retryLimit: 2, retryDelaySeconds: 1, expireInSeconds: 60 });

/** A fetched job: the fields the worker reads. */
function job(id: string, n: number, expireInSeconds = 60): JobWithMetadata<{ n: number }> {
  const fetched: Pick<JobWithMetadata<{ n: number }>, 'id' | 'name' | 'data' | 'expireInSeconds' | 'retryCount' | 'state'> = {
    id,
    name: JOB.name,
    data: { n },
    expireInSeconds,
    retryCount: 0,
    state: 'active',
  };
  return fetched as JobWithMetadata<{ n: number }>;
}

describe(JobWorker.name, () => {
  let source: jest.Mocked<JobSource>;
  let logger: jest.Mocked<Pick<Logger, 'warn'>>;
  let handler: jest.Mock<Promise<void>, [{ n: number }, { id: string; retryCount: number }]>;
  let sut: JobWorker<{ n: number }>;

  /** Hands out `batches` one per fetch, then nothing. */
  function fetching(...batches: JobWithMetadata<{ n: number }>[][]): void {
    const fetch: jest.Mocked<JobSource>['fetch'] = source.fetch;
    fetch.mockImplementation(() => Promise.resolve(batches.shift() ?? []) as ReturnType<JobSource['fetch']>);
  }

  /** Runs the worker until every batch has been fetched and recorded. */
  async function runOnce(): Promise<void> {
    sut.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await sut.stop();
  }

  beforeEach(() => {
    source = { fetch: jest.fn(), complete: jest.fn().mockResolvedValue(undefined), fail: jest.fn().mockResolvedValue(undefined) };
    logger = { warn: jest.fn() };
    handler = jest.fn().mockResolvedValue(undefined);
    sut = new JobWorker(source, JOB, handler, { batchSize: 5, pollingIntervalMs: 5 }, logger);
  });

  it('runs each fetched job, completes the successes in one call and fails each failure with its error name', async () => {
    fetching([job('a', 1), job('b', 2), job('c', 3)]);
    handler.mockImplementation(async ({ n }) => {
      if (n === 2) throw new TypeError('boom');
    });
    await runOnce();
    expect(source.fetch).toHaveBeenCalledWith(JOB.name, { batchSize: 5, includeMetadata: true });
    expect(handler).toHaveBeenCalledWith({ n: 1 }, { id: 'a', retryCount: 0 });
    expect(source.fail).toHaveBeenCalledTimes(1);
    expect(source.fail).toHaveBeenCalledWith(JOB.name, { id: 'b', retryCount: 0 }, { errorName: 'TypeError' });
    expect(source.complete).toHaveBeenCalledTimes(1);
    expect(source.complete).toHaveBeenCalledWith(JOB.name, [
      { id: 'a', retryCount: 0 },
      { id: 'c', retryCount: 0 },
    ]);
  });

  it('logs an outcome it cannot record (PostgreSQL restarting) and keeps working, instead of leaving the rejection unhandled', async () => {
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      fetching([job('a', 1)], [job('b', 2)]);
      source.complete.mockRejectedValueOnce(Object.assign(new Error('terminating connection'), { code: '57P01' }));
      await runOnce();
      expect(source.complete).toHaveBeenCalledTimes(2);
      expect(source.complete).toHaveBeenLastCalledWith(JOB.name, [{ id: 'b', retryCount: 0 }]);
      expect(logger.warn).toHaveBeenCalledWith(
        { job: JOB.name, method: 'complete', errorName: 'Error', errorCode: '57P01' },
        'job outcome not recorded; the job will expire and run again',
      );
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('keeps polling after a failed fetch', async () => {
    source.fetch.mockRejectedValueOnce(new Error('connection refused'));
    fetching();
    source.fetch.mockRejectedValueOnce(new Error('connection refused'));
    await runOnce();
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ job: JOB.name }), 'job fetch failed');
    expect(source.fetch.mock.calls.length).toBeGreaterThan(1);
  });

  it('fails a job whose handler is still running when the job expires', async () => {
    fetching([job('slow', 1, 0.01)]);
    handler.mockImplementation(() => new Promise(() => undefined));
    await runOnce();
    expect(source.fail).toHaveBeenCalledWith(JOB.name, { id: 'slow', retryCount: 0 }, { errorName: 'Error' });
    expect(source.complete).not.toHaveBeenCalled();
  });

  it('fetches again at once after a full batch (more may be due); waits its interval after a short one', async () => {
    sut = new JobWorker(source, JOB, handler, { batchSize: 2, pollingIntervalMs: 60_000 }, logger);
    fetching([job('a', 1), job('b', 2)], [job('c', 3), job('d', 4)], [job('e', 5)], [job('f', 6)]);
    await runOnce();
    // Three fetches in the 30 ms: two full batches, then a short one; the fourth waits a minute.
    expect(handler.mock.calls.map(([data]) => data.n)).toEqual([1, 2, 3, 4, 5]);
    expect(source.fetch).toHaveBeenCalledTimes(3);
  });

  it('stops fetching once stopped', async () => {
    fetching();
    await runOnce();
    const calls = source.fetch.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.fetch.mock.calls.length).toBe(calls);
  });
});
