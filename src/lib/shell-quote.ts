/**
 * @module lib/shell-quote
 * Quoting for POSIX sh: the one helper every place that writes a command line for
 * /bin/sh uses (the user's launch shell, prologs, cgroup scripts, `spur net apply`).
 */

/** `s` as one sh word, always single-quoted ('it'\''s'). */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/** `s` as one sh word, left bare when it has only characters sh never treats specially. */
export function shellQuoteIfNeeded(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : shellQuote(s);
}
