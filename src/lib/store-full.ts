/**
 * @module lib/store-full
 * What a controller answers when its state directory cannot take another write (a full
 * disk). The write was refused whole (SQLite rolled its transaction back), so nothing was
 * applied and the caller may retry safely: it is told so with the text of ENOSPC, which is
 * what Slurm prints for errno 28 (strerror), e.g. `sbatch: error: Batch job submission
 * failed: No space left on device`.
 */

/** strerror(ENOSPC): the words a Slurm client prints for this errno. */
export const NO_SPACE_MESSAGE = "No space left on device";

export class StoreFullError extends Error {
  override readonly name = "StoreFullError";
  constructor(override readonly cause: unknown) {
    super(NO_SPACE_MESSAGE);
  }
}

/**
 * True for errors that mean "no room to write": SQLite's SQLITE_FULL (its unix VFS maps
 * ENOSPC and EDQUOT to it) or a raw ENOSPC/EDQUOT from the file system.
 */
export function isDiskFull(error: unknown): boolean {
  if (error instanceof StoreFullError) return true;
  const e = error as { code?: unknown; errno?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== "object") return false;
  if (e.code === "SQLITE_FULL" || e.code === "ENOSPC" || e.code === "EDQUOT") return true;
  return typeof e.message === "string" && /database or disk is full|no space left on device/i.test(e.message);
}

/**
 * Logs a full disk once when it starts and once when writes succeed again (a client that
 * retries every 100 ms must not fill the log of a controller that is out of space).
 */
export function diskFullReporter(logger: { warn(o: object): void; info(o: object): void }, what: string) {
  let full = false;
  return {
    failed(error: unknown): void {
      if (full) return;
      full = true;
      logger.warn({ message: `${what}: no space left on the state directory; changes are refused until there is`, error: String((error as Error)?.message ?? error) });
    },
    succeeded(): void {
      if (!full) return;
      full = false;
      logger.info({ message: `${what}: the state directory takes writes again` });
    },
    isFull: () => full,
  };
}
