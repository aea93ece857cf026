/**
 * A loopback webhook endpoint for the soak: records every delivery by `webhook-id` and answers
 * 500 to a share of first attempts, so redelivery is exercised too.
 */
import * as http from 'node:http';

export interface WebhookReceiver {
  readonly url: string;
  /** eventId → deliveries answered 2xx. */
  readonly delivered: Map<string, number>;
  /** Attempts answered 500 on purpose. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(refuseShare: number): Promise<WebhookReceiver> {
  const delivered = new Map<string, number>();
  const attempted = new Set<string>();
  const state = { refused: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const first = !attempted.has(id);
      attempted.add(id);
      if (!id || (first && Math.random() < refuseShare)) {
        state.refused += 1;
        res.writeHead(500).end();
        return;
      }
      delivered.set(id, (delivered.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    delivered,
    get refused() {
      return state.refused;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
