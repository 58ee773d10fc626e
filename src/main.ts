/**
 * @module main
 * One executable, many names (busybox style): the role comes from the name it
 * was invoked by (`basename(argv0)`), or from `spur <role|command> ...`. Each
 * role is imported lazily so a command pays only for what it runs.
 */
type Entry = () => Promise<(argv: string[]) => Promise<number>>;

const cli = (load: () => Promise<Record<string, unknown>>, name: string): Entry => async () => {
  const [{ runCli }, mod] = await Promise.all([import("./roles/cli/run.ts"), load()]);
  const fn = mod[name] as Parameters<typeof runCli>[0];
  return (argv) => runCli(fn, argv);
};

export const ENTRIES: Record<string, Entry> = {
  spurctld: async () => (await import("./roles/spurctld.ts")).main,
  spurd: async () => (await import("./roles/spurd.ts")).main,
  spurrestd: async () => (await import("./roles/spurrestd.ts")).main,
  spur: async () => (await import("./roles/spur.ts")).main,
  stepd: async () => (await import("./roles/stepd.ts")).main,
  "pmix-server": async () => (await import("./roles/pmix-server.ts")).main,
  "snapshot-worker": async () => (await import("./roles/snapshot-worker.ts")).main,
  sbatch: cli(() => import("./cli/sbatch.ts"), "sbatchMain"),
  squeue: cli(() => import("./cli/squeue.ts"), "squeueMain"),
  sinfo: cli(() => import("./cli/sinfo.ts"), "sinfoMain"),
  sacct: cli(() => import("./cli/sacct.ts"), "sacctMain"),
  sstat: cli(() => import("./cli/sstat.ts"), "sstatMain"),
  scontrol: cli(() => import("./cli/scontrol.ts"), "scontrolMain"),
  scancel: cli(() => import("./cli/scancel.ts"), "scancelMain"),
  sprio: cli(() => import("./cli/sprio.ts"), "sprioMain"),
  sdiag: cli(() => import("./cli/sdiag.ts"), "sdiagMain"),
  sacctmgr: cli(() => import("./cli/sacctmgr.ts"), "sacctmgrMain"),
  sshare: cli(() => import("./cli/sshare.ts"), "sshareMain"),
  seff: cli(() => import("./cli/seff.ts"), "seffMain"),
  sreport: cli(() => import("./cli/sreport.ts"), "sreportMain"),
  srun: async () => (await import("./roles/cli/srun.ts")).main,
  salloc: async () => (await import("./roles/cli/salloc.ts")).main,
  sgather: async () => (await import("./roles/cli/sgather.ts")).main,
  sbcast: async () => (await import("./roles/cli/sbcast.ts")).main,
  sattach: async () => (await import("./roles/cli/sattach.ts")).main,
  strigger: async () => (await import("./roles/cli/strigger.ts")).main,
};


/**
 * The long-running roles. The executable starts with JavaScriptCore's tier-up thresholds scaled
 * for a user command's short life (scripts/build-binary.ts --compile-jit-policy); a daemon
 * restores the normal policy before it loads anything, so its hot paths compile as usual.
 */
const DAEMON_ROLES = new Set(["spurctld", "spurd", "spurrestd", "stepd", "pmix-server", "snapshot-worker"]);

/** The name without a .exe/.ts/.js suffix (no RegExp: compiling one costs a fresh process ~0.5 ms). */
function bareName(file: string): string {
  for (const ext of [".exe", ".ts", ".js"]) if (file.endsWith(ext)) return file.slice(0, -ext.length);
  return file;
}

async function run(): Promise<number> {
  const invoked = bareName(process.argv0.split("/").pop() ?? "spur");
  let name = invoked in ENTRIES && invoked !== "spur" ? invoked : "spur";
  let argv = process.argv.slice(2);
  if (name === "spur" && argv[0] !== undefined && argv[0] in ENTRIES && argv[0] !== "spur") {
    name = argv[0];
    argv = argv.slice(1);
  }
  const entry = ENTRIES[name];
  if (entry === undefined) return 1;
  if (DAEMON_ROLES.has(name)) Bun.unsafe.setJITPolicy(1);
  return (await entry())(argv);
}

run().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  },
);
