import type { TestApp } from './test-app';

/** The app's Prometheus text (`/metrics`), after checking it answered 200. */
export async function scrape(app: TestApp): Promise<string> {
  const res = await fetch(`${app.baseUrl}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The sample's value; undefined when the series is not exposed. */
export function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
