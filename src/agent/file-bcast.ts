/**
 * @module agent/file-bcast
 * sbcast's writes on a node: one block of a file, written by a shell that runs
 * as the job's user (setpriv, as every user launch: user-launch.ts), so the
 * user can write only where the user may (docs/security.md: root opens nothing
 * a job names). As slurmd's file_bcast child: the first block creates the file
 * (O_EXCL through the shell's noclobber unless -f; created 0700, i.e. umask
 * 077), later blocks append, the last sets the source's mode and with -p its
 * access and modification times. A failure comes back as the errno sbcast
 * exits with and strerror's text ("File exists"), read from the shell's
 * message (its wording varies: the reason is what follows the last ": ").
 */
import type { FileBcastRequest } from "../net/gen/spur/v1/agent_pb.ts";
import { cannotRunAs, spawnAsUser } from "./run-as.ts";

const SCRIPT = [
  'd=$1 first=$2 force=$3 last=$4 mode=$5 pres=$6 at=$7 mt=$8',
  'if [ "$first" = 1 ]; then',
  '  if [ "$force" = 1 ]; then exec 3>"$d" || exit 1; else set -C; exec 3>"$d" || exit 1; set +C; fi',
  'else exec 3>>"$d" || exit 1; fi',
  'cat >&3 || exit 1',
  'exec 3>&-',
  'if [ "$last" = 1 ]; then',
  '  chmod "$mode" "$d" || exit 1',
  '  if [ "$pres" = 1 ]; then touch -a -d "@$at" "$d" && touch -m -d "@$mt" "$d" || exit 1; fi',
  'fi',
].join("\n");

/** strerror texts sbcast shows, and their errno (Linux). */
const ERRNO: Record<string, number> = {
  "Operation not permitted": 1, "No such file or directory": 2, "Permission denied": 13, "File exists": 17, "Not a directory": 20,
  "Is a directory": 21, "Text file busy": 26, "No space left on device": 28, "Read-only file system": 30, "Disk quota exceeded": 122,
};

/** dash's own words for some errors, and strerror's. */
const SHELL_WORDS: Record<string, string> = { "directory nonexistent": "No such file or directory", "no such file": "No such file or directory" };

export interface BcastOutcome {
  errno: number;
  error: string;
}

/** The errno and text of what the shell said on stderr (its last line). */
export function bcastFailure(stderr: string): BcastOutcome {
  const last = stderr.trim().split("\n").at(-1) ?? "";
  const said = last.slice(last.lastIndexOf(": ") + 2).trim();
  const error = SHELL_WORDS[said.toLowerCase()] ?? (said || "Unknown error");
  return { errno: ERRNO[error] ?? 1, error };
}

/** Write one block of `req` as `uid`/`gid` on `node`; resolves with errno 0 when written. */
export function writeBcastBlock(req: FileBcastRequest, uid: number, gid: number, node: string): Promise<BcastOutcome> {
  const cannot = cannotRunAs(uid);
  if (cannot !== "") return Promise.resolve({ errno: 1, error: cannot });
  const args = [req.dest, req.first ? "1" : "0", req.force ? "1" : "0", req.last ? "1" : "0", (req.mode & 0o7777).toString(8), req.preserve ? "1" : "0",
    String(req.atimeSec), String(req.mtimeSec)];
  const { child } = spawnAsUser({ uid, gid, workDir: "/", node, umask: "077", env: {} }, ["/bin/sh", "-c", SCRIPT, "sbcast", ...args], ["pipe", "ignore", "pipe"]);
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    if (stderr.length < 4096) stderr += b.toString();
  });
  child.stdin?.on("error", () => undefined); // the shell failed before reading: its message says why
  child.stdin?.end(req.data);
  return new Promise((resolve) => {
    child.once("error", (e) => resolve({ errno: 1, error: e.message }));
    child.once("close", (code) => resolve(code === 0 ? { errno: 0, error: "" } : bcastFailure(stderr)));
  });
}
