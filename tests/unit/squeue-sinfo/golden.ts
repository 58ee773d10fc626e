/**
 * @module tests/squeue-sinfo/golden
 * Reading the oracle's golden files (raw stdout/stderr bytes, exit code,
 * command) and a fake CliPort that serves fixture records, so each test runs
 * squeueMain/sinfoMain on the golden's argv and compares byte for byte.
 */
import { readFileSync } from "node:fs";
import type { CliPort, CliResult, ControllerPort } from "../../../src/net/ctl-port.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo, NodeInfo, PartitionInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import { GOLDEN_DIR_PATH } from "../../shared-dir.ts";

const GOLDEN_DIR = GOLDEN_DIR_PATH;

export interface Golden {
  command: string;
  argv: string[];
  stdout: string;
  stderr: string;
  exitCode: number;
}

function block(raw: Buffer, label: string): string {
  const text = raw.toString("latin1");
  const m = new RegExp(`### ${label} \\((\\d+) bytes\\):\\n`).exec(text);
  if (m === null) throw new Error(`no ${label} block`);
  const start = m.index + m[0].length;
  return raw.subarray(start, start + Number(m[1])).toString("utf8");
}

/** Split a shell command line (double and single quotes, no expansions). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | undefined;
  let inWord = false;
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === " ") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** Load `NNN-name.txt` by its number prefix. */
export function golden(prefix: string): Golden {
  const files = readFileSync(`${GOLDEN_DIR}/INDEX.txt`, "utf8")
    .split("\n")
    .map((l) => l.split(/\s+/)[0] ?? "")
    .filter((f) => f.startsWith(`${prefix}-`));
  const file = files[0];
  if (file === undefined) throw new Error(`no golden ${prefix}`);
  const raw = readFileSync(`${GOLDEN_DIR}/${file}`);
  const text = raw.toString("utf8");
  const command = /### command:\n(.*)\n/.exec(text)?.[1] ?? "";
  const exitCode = Number(/### exit_code: (\d+)/.exec(text)?.[1] ?? "-1");
  return { command, argv: shellWords(command).slice(1), stdout: block(raw, "stdout"), stderr: block(raw, "stderr"), exitCode };
}

export interface World {
  jobs?: Plain<JobInfo>[];
  nodes?: Plain<NodeInfo>[];
  partitions?: Plain<PartitionInfo>[];
  /** Epoch seconds of the controller's answer and of the command's clock. */
  now: number;
  env?: Record<string, string | undefined>;
  down?: boolean;
  uid?: number;
  user?: string;
}

const notUsed = (): never => {
  throw new Error("not used by squeue/sinfo");
};

/** A CliPort whose controller answers from the fixture (or is unreachable). */
export function fakePort(world: World): CliPort {
  const unavailable = (): never => {
    throw new RpcError("unavailable", "connect failure");
  };
  const ctl: ControllerPort = {
    submit: notUsed,
    listJobs: async () => (world.down ? unavailable() : { jobs: world.jobs ?? [], now: world.now, clusterName: "oracle" }),
    listNodes: async () =>
      world.down ? unavailable() : { nodes: world.nodes ?? [], partitions: world.partitions ?? [], now: world.now, licenses: [], downSpans: [] },
    cancel: notUsed,
    updateJob: notUsed,
    updateNode: notUsed,
    ping: notUsed,
    getConfig: notUsed,
    waitJob: notUsed,
  };
  return {
    ctl,
    invoker: { uid: world.uid ?? 0, gid: 0, user: world.user ?? "root", group: "root", cwd: "/tmp", hostname: "vm" },
    env: world.env ?? {},
    now: () => world.now + 0.25,
    readFile: async () => undefined,
    readStdin: async () => "",
    write: () => undefined,
    sleep: async () => undefined,
  };
}

/** What a CliResult must equal to match the golden. */
export const expected = (g: Golden): CliResult => ({ stdout: g.stdout, stderr: g.stderr, exitCode: g.exitCode });
