/**
 * @module roles/logger
 * The daemons' root logger: consola's core entry (the default entry costs ~40 ms
 * of start-up) with a JSON-lines reporter, one object per line with the tag,
 * level and whatever ids the caller passed (jobId, node, ...).
 */
import { createConsola, type ConsolaInstance, type LogObject } from "consola/core";

export function createLogger(role: string, level = 3): ConsolaInstance {
  return createConsola({
    level,
    // consola folds repeated messages by default, hiding lines that differ only in their ids.
    throttle: 0,
    reporters: [
      {
        log(entry: LogObject) {
          // consola merges an object argument's keys into the entry itself.
          const { date, args, type, level: _level, tag, ...fields } = entry as LogObject & Record<string, unknown>;
          const texts = args.filter((a) => typeof a !== "object").map(String);
          const line = JSON.stringify({
            time: date.toISOString(), level: type, role, tag: tag || undefined,
            ...(texts.length > 0 ? { message: texts.join(" ") } : {}), ...fields,
          });
          process.stderr.write(`${line}\n`);
        },
      },
    ],
  });
}
