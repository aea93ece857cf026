import type { Client, Connection, Submittable } from 'pg';

/**
 * `COPY … TO STDOUT` through node-postgres, which otherwise drops COPY data: a submittable that
 * sends the statement and collects the CopyData messages (the protocol pg-copy-streams uses).
 */
class CopyOut implements Submittable {
  private readonly chunks: Buffer[] = [];
  private error: Error | undefined;

  constructor(
    private readonly text: string,
    private readonly done: (error: Error | undefined, text: string) => void,
  ) {}

  submit(connection: Connection): void {
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    this.chunks.push(message.chunk);
  }

  handleCommandComplete(): void {}

  handleError(error: Error): void {
    this.error = error;
  }

  handleReadyForQuery(): void {
    this.done(this.error, Buffer.concat(this.chunks).toString('utf8'));
  }
}

export function copyOut(client: Client, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const submittable = new CopyOut(text, (error, out) => (error ? reject(error) : resolve(out)));
    client.query(submittable);
  });
}

/** Every table of the connection's schema, each as `COPY (select * from t) TO STDOUT` text. */
export async function copyEveryTable(client: Client): Promise<Record<string, string>> {
  const tables = (
    await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`,
    )
  ).rows.map((row) => row.name);
  const out: Record<string, string> = {};
  for (const table of tables) out[table] = await copyOut(client, `copy (select * from "${table}") to stdout`);
  return out;
}
