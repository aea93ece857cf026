/**
 * The failover scenario's side of scripts/ha-cluster: starts and stops the cluster, finds the
 * primary through Patroni's REST API, and kills its PostgreSQL the way a lost machine does.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, sleep } from './processes';

export interface ClusterNode {
  name: string;
  pgPort: number;
  restPort: number;
}

export interface Cluster {
  readonly dir: string;
  readonly databaseUrl: string;
  readonly synchronous: boolean;
  readonly nodes: ClusterNode[];
  stop(): void;
}

const SCRIPTS = path.join(ROOT, 'scripts', 'ha-cluster');

/** Runs start.sh (installs what is missing, starts etcd, two Patroni nodes and HAProxy) and reads what it wrote. */
export function startCluster(options: { dir: string; synchronous: boolean; portBase: number }): Cluster {
  const env = { ...process.env, HA_DIR: options.dir, HA_SYNC: String(options.synchronous), HA_PORT_BASE: String(options.portBase) };
  const stop = () => execFileSync('bash', [path.join(SCRIPTS, 'stop.sh')], { env, stdio: 'inherit' });
  try {
    execFileSync('bash', [path.join(SCRIPTS, 'start.sh')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (error) {
    stop();
    throw error;
  }
  const vars = Object.fromEntries(
    fs
      .readFileSync(path.join(options.dir, 'cluster.env'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const nodes = String(vars.HA_NODES)
    .split(',')
    .map((entry) => {
      const [name, , pgPort, restPort] = entry.split(':');
      return { name, pgPort: Number(pgPort), restPort: Number(restPort) };
    });
  return { dir: options.dir, databaseUrl: String(vars.HA_DATABASE_URL), synchronous: options.synchronous, nodes, stop };
}

/** Whether Patroni on `node` answers 200 to `role` (primary, replica, sync). */
export async function hasRole(node: ClusterNode, role: 'primary' | 'replica' | 'sync'): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${node.restPort}/${role}`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export async function primaryOf(cluster: Cluster): Promise<ClusterNode | undefined> {
  for (const node of cluster.nodes) if (await hasRole(node, 'primary')) return node;
  return undefined;
}

/** Waits until some node other than `former` is primary; its name, or undefined after `timeoutMs`. */
export async function waitForNewPrimary(cluster: Cluster, former: ClusterNode, timeoutMs: number): Promise<ClusterNode | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const node of cluster.nodes) if (node !== former && (await hasRole(node, 'primary'))) return node;
    await sleep(100);
  }
  return undefined;
}

/** SIGKILL to the node's postmaster and every process it started: the server is gone at once, as with a lost machine. */
export function killPostgres(cluster: Cluster, node: ClusterNode): number {
  const pid = Number(fs.readFileSync(path.join(cluster.dir, node.name, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = childrenOf(pid);
  process.kill(pid, 'SIGKILL');
  for (const child of children) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // already gone with its postmaster
    }
  }
  return pid;
}

/**
 * Stops the WAL sender of the primary on `node` (SIGSTOP): a standby falling behind, as one across a
 * slow link does (pausing the standby's receiver would not do: the socket's buffers still hold what
 * was sent). Under synchronous replication the primary's commits wait for the standby; under
 * asynchronous replication they do not. The kill of the primary ends it.
 */
export function pauseWalSender(cluster: Cluster, node: ClusterNode): void {
  const postmaster = Number(fs.readFileSync(path.join(cluster.dir, node.name, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const senders = childrenOf(postmaster).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('walsender');
    } catch {
      return false;
    }
  });
  if (senders.length === 0) throw new Error(`no WAL sender on ${node.name}`);
  for (const pid of senders) process.kill(pid, 'SIGSTOP');
}

function childrenOf(parent: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after its ')'.
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}
