/**
 * @module devices/run-nvidia-smi
 * The only file in src/devices that spawns: runs `nvidia-smi -q -x`, `topo -m`
 * and `-L` through an injected CommandRunner (tests pass fixture text) and hands
 * the raw outputs back. A missing nvidia-smi means "no NVIDIA GPUs", not an error.
 */
import { err, ok, type Result } from "../lib/result.ts";

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs argv with a time limit; undefined when the program does not exist. */
export type CommandRunner = (argv: string[], timeoutMs: number) => Promise<CommandResult | undefined>;

/** Raw outputs; topo and list are optional because some drivers/containers refuse them. */
export interface NvidiaSmiTexts {
  query: string;
  topo?: string;
  list?: string;
}

/** nvidia-smi can stall for seconds while the driver initialises GPUs. */
export const NVIDIA_SMI_TIMEOUT_MS = 20_000;

/** Real runner: Bun.spawn with piped output and a kill-on-timeout. */
export const spawnCommand: CommandRunner = async (argv, timeoutMs) => {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn({ cmd: argv, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
  } catch {
    return undefined;
  }
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  return { exitCode, stdout, stderr };
};

function failure(argv: string[], r: CommandResult): string {
  const why = (r.stderr.trim() || r.stdout.trim()).split("\n")[0] ?? "";
  return `${argv.join(" ")} exited with status ${r.exitCode}${why === "" ? "" : `: ${why}`}`;
}

/** ok(undefined) when nvidia-smi is not installed; err when it is there but fails (driver not loaded, ...). */
export async function runNvidiaSmi(run: CommandRunner = spawnCommand, binary = "nvidia-smi"): Promise<Result<NvidiaSmiTexts | undefined>> {
  const queryArgv = [binary, "-q", "-x"];
  const query = await run(queryArgv, NVIDIA_SMI_TIMEOUT_MS);
  if (query === undefined) return ok(undefined);
  if (query.exitCode !== 0) return err("NvidiaSmiFailed", failure(queryArgv, query));
  const texts: NvidiaSmiTexts = { query: query.stdout };
  const topo = await run([binary, "topo", "-m"], NVIDIA_SMI_TIMEOUT_MS);
  if (topo !== undefined && topo.exitCode === 0) texts.topo = topo.stdout;
  const list = await run([binary, "-L"], NVIDIA_SMI_TIMEOUT_MS);
  if (list !== undefined && list.exitCode === 0) texts.list = list.stdout;
  return ok(texts);
}
