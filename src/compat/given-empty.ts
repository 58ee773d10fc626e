/**
 * @module compat/given-empty
 * An option given with an empty value is not the option left out: Slurm keeps the empty
 * string where it keeps NULL for "unset", and its displays tell them apart (oracle 22.05,
 * `sbatch --hold --OPT= --wrap=true`): --constraint= shows Features= (squeue %f empty) where
 * an unset one shows Features=(null); --comment= and --prefer= print their line empty;
 * --licenses=, --nodelist=, --exclude= show Licenses=, ReqNodeList=, ExcNodeList=; --wckey= is squeue
 * %w empty where an unset one is (null) (differential seeds 9770, 9790); the file
 * options --output=, --error=, --input= name the working directory itself ("WorkDir/").
 * Spur's records use "" for unset, so the names of the options given empty ride beside them
 * as one comma-separated string (absent when none). Pure.
 */

/** The options whose empty value is kept apart from unset. */
export const EMPTY_KEPT: ReadonlySet<string> = new Set(["constraint", "comment", "prefer", "licenses", "nodelist", "exclude", "wckey", "output", "error", "input", "bb"]);

/** Of those, the ones the job record shows (the file options are resolved into paths at submission). */
const SHOWN: ReadonlySet<string> = new Set(["constraint", "comment", "prefer", "licenses", "nodelist", "exclude", "wckey", "bb"]);

/** Whether option `name` is in the list `given` (a record's givenEmpty). */
export function isGivenEmpty(given: string | undefined, name: string): boolean {
  return given !== undefined && given.split(",").includes(name);
}

/** The list after option `name` was given again, empty or not (the last occurrence wins); undefined when empty. */
export function noteGiven(given: string | undefined, name: string, empty: boolean): string | undefined {
  const names = (given ?? "").split(",").filter((n) => n !== "" && n !== name);
  if (empty) names.push(name);
  return names.length === 0 ? undefined : names.join(",");
}

/** The part of a request's list that the job record keeps for display; undefined when none. */
export function shownGivenEmpty(given: string | undefined): string | undefined {
  const names = (given ?? "").split(",").filter((n) => SHOWN.has(n));
  return names.length === 0 ? undefined : names.join(",");
}

/** `value` as scontrol/squeue print a string field: (null) when unset, as given otherwise. */
export const emptyOrNull = (value: string, given: string | undefined, name: string): string =>
  value !== "" ? value : isGivenEmpty(given, name) ? "" : "(null)";
