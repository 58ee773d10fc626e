/**
 * @module lib/strerror
 * strerror's words (Linux, glibc) for the error codes Node reports on a failed file call:
 * Slurm's commands print them after their own prefix ("Can't open `x`: Permission denied").
 * One table, so every command says the same thing for the same failure.
 */

const STRERROR: Readonly<Record<string, string>> = {
  EPERM: "Operation not permitted", ENOENT: "No such file or directory", EACCES: "Permission denied", EEXIST: "File exists",
  ENOTDIR: "Not a directory", EISDIR: "Is a directory", ETXTBSY: "Text file busy", ENOSPC: "No space left on device",
  EROFS: "Read-only file system", ELOOP: "Too many levels of symbolic links", EDQUOT: "Disk quota exceeded",
};

/** strerror's text for a thrown file error (its `code`), else the error's own message. */
export function strerrorOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const known = typeof code === "string" ? STRERROR[code] : undefined;
  return known ?? (error instanceof Error ? error.message : String(error));
}
