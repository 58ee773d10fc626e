/**
 * @module rest/versions
 * The data_parser versions Spur serves (slurmrestd of Slurm 26.05 serves the
 * same four) and the per-version adapter: which paths each version binds
 * (from the slurmrestd path tables, shared/slurm-surface/rest-api.md) and the
 * `meta` block it reports. One set of handlers serves every version.
 */
import type { Meta } from "./schemas-common.ts";
import { SLURM_RELEASE } from "../../compat/slurm-release.ts";

export const VERSIONS = ["v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"] as const;
export type Version = (typeof VERSIONS)[number];
export const NEWEST: Version = "v0.0.45";

/** The Slurm release whose slurmrestd serves exactly VERSIONS. */
export { SLURM_RELEASE as REST_SLURM_RELEASE } from "../../compat/slurm-release.ts";

/** Numeric form: "v0.0.44" → 44. */
export const versionNumber = (v: Version): number => Number(v.slice(5));

/** A path is bound for a version when that version's data_parser had its types. */
export const boundIn = (v: Version, since: number, until = 99): boolean => versionNumber(v) >= since && versionNumber(v) <= until;

export interface MetaContext {
  version: Version;
  api: "slurmctld" | "slurmdbd" | "util";
  user: string;
  group: string;
  source: string;
  cluster: string;
}

export function metaFor(m: MetaContext): Meta {
  const r = SLURM_RELEASE;
  return {
    plugin: {
      type: `openapi/${m.api}`,
      name: `Slurm OpenAPI ${m.api}`,
      data_parser: `data_parser/${m.version}`,
      accounting_storage: "accounting_storage/spur",
    },
    client: { source: m.source, user: m.user, group: m.group },
    command: [],
    slurm: { version: { major: r.major, micro: r.micro, minor: r.minor }, release: `${r.major}.${r.minor}.${r.micro}`, cluster: m.cluster },
  };
}
