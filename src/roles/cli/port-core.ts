/**
 * @module roles/cli/port-core
 * The real CliPort: the controller port (net/ctl-client/controller-port.ts: Connect's
 * JSON form over plain fetch), the invoking user, env and clock.
 * Every user command loads this, so it stays off node:fs, node:os and Node's
 * streams (docs/startup.md): files are read by client-env.ts, output goes through
 * stdio.ts. port.ts adds what srun/salloc/spur need on top (sync conf lookups).
 */
import { strerrorOf } from "../../lib/strerror.ts";
import { RpcError, type CliPort } from "../../net/ctl-port.ts";
import { connectAnswer, controllerPort } from "../../net/ctl-client/controller-port.ts";
import { fetchTls, rpcUrl } from "../../net/client-tls.ts";
import { unknownUser } from "../../net/users-parse.ts";
import { loadClientEnv } from "./client-env.ts";
import { writeOutput } from "./stdio.ts";

/** Where a CLI's failover diagnosis goes: its stderr, in order with the rest of its output. */
export const stderrLine = (line: string): void => {
  void writeOutput("stderr", line);
};

export async function realPort(): Promise<CliPort> {
  const env = await loadClientEnv();
  const uid = process.getuid?.() ?? 0;
  const byUid = (n: number) => env.userById(n) ?? unknownUser(n);
  let me: ReturnType<typeof byUid> | undefined;
  const invokerEntry = () => (me ??= byUid(uid));
  // The names and the host name are getters: read from the host only when a command asks (client-env.ts).
  const invoker: CliPort["invoker"] = {
    uid,
    gid: process.getgid?.() ?? invokerEntry().gid,
    get user() {
      return invokerEntry().name;
    },
    get group() {
      return invokerEntry().group;
    },
    cwd: process.cwd(),
    get hostname() {
      return env.hostname();
    },
    umask: process.umask(),
    ...(env.clusterName === undefined ? {} : { clusterName: env.clusterName }),
  };
  return {
    ctl: controllerPort(env.urls, {}, { urls: env.urls, warn: stderrLine }, "one-shot"),
    invoker,
    env: process.env,
    now: () => Date.now() / 1000,
    readFile: async (path) => {
      try {
        return await Bun.file(path).text();
      } catch {
        return undefined;
      }
    },
    fileExists: async (path) => {
      try {
        return await Bun.file(path).exists();
      } catch {
        return false;
      }
    },
    writeFile: async (path, text) => {
      if (path === "") return strerrorOf({ code: "ENOENT" });
      try {
        // node:fs only here (start-up: the entry path loads no node:fs); Bun.write would create missing directories
        (await import("node:fs")).writeFileSync(path, text);
        return undefined;
      } catch (e) {
        return strerrorOf(e);
      }
    },
    readStdin: async () => (process.stdin.isTTY ? "" : await Bun.stdin.text()),
    write: (stream, text) => {
      void writeOutput(stream, text);
    },
    streamsOutput: true,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    readLine: (timeoutMs) => readLine(timeoutMs),
    userKnown: (u) => (/^\d+$/.test(u) ? byUid(Number(u)).name !== u : env.userByName(u) !== undefined),
    uidOf: (u) => (/^\d+$/.test(u) ? (byUid(Number(u)).name !== u ? Number(u) : undefined) : env.userByName(u)?.uid),
    agentListPids: (addr, port, req) => callAgent(rpcUrl(addr, port), "ListPids", req),
  };
}

/** One call to a node agent in Connect's JSON form (scontrol listpids); its error message as Slurm's scontrol would say it. */
async function callAgent<T>(base: string, method: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/spur.v1.Agent/${method}`, { ...fetchTls(base), method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
  } catch {
    throw new RpcError("unavailable", "Unable to connect to slurmstepd");
  }
  return connectAnswer<T>(res, "node agent");
}

/** Read one line from stdin (a terminal or a pipe); undefined on timeout, what there was at end of input. */
function readLine(timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buf = "";
    const finish = (line: string | undefined): void => {
      clearTimeout(timer);
      process.stdin.off("data", onData);
      process.stdin.off("end", onEnd);
      process.stdin.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string): void => {
      buf += chunk.toString();
      const nl = buf.indexOf("\n");
      if (nl >= 0) finish(buf.slice(0, nl));
    };
    const onEnd = (): void => finish(buf);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    process.stdin.on("data", onData);
    process.stdin.on("end", onEnd);
    process.stdin.resume();
  });
}
