import * as fs from 'node:fs';
import { MINIMUM_NODE_MAJOR, nodeVersionProblem } from './node-version';

describe(nodeVersionProblem.name, () => {
  it.each(['24.0.0', '24.21.0', '26.1.0'])('accepts Node %s', (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it.each(['20.20.2', '22.12.0', '23.11.1'])('refuses Node %s in one line that says which and how to run it', (version) => {
    const line = nodeVersionProblem(version);
    expect(line).toContain(`needs Node ${MINIMUM_NODE_MAJOR} or newer, not ${version}`);
    expect(line).toContain('npm start');
    expect(line).not.toContain('\n');
  });

  it('runs before anything else: the entry point imports the telemetry preload first, which imports this first', () => {
    const firstImport = (file: string) => /^import [^;]+;$/m.exec(fs.readFileSync(file, 'utf8'))?.[0];
    expect(firstImport('src/main.ts')).toBe("import './infrastructure/telemetry/preload';");
    expect(firstImport('src/infrastructure/telemetry/preload.ts')).toBe("import '../runtime/node-version';");
  });
});
