/**
 * @module rest/schemas-sinfo
 * `sinfo --json=v0.0.4x`'s document (data_parser's `openapi_sinfo_resp`):
 * one `sinfo_data` per line sinfo would print (a partition × node grouping),
 * with counts, min/max ranges and the partition as `partition_info`.
 * slurmrestd serves no path for it, so openapi.ts publishes it as a
 * component only (CLI_ONLY_SCHEMAS), next to the route schemas.
 */
import { arr, int32, int64, named, obj, str, strEnum } from "./schema.ts";
import { Uint32NoVal, Uint64NoVal, envelopeProps } from "./schemas-common.ts";
import { NODE_STATES, Partition } from "./schemas-cluster.ts";
import { ListPidsResp, StepInfoResp } from "./cli-steps.ts";

const range = (n: () => ReturnType<typeof int32>) => obj({ minimum: n(), maximum: n() });

export const SinfoData = named(
  "sinfo_data",
  obj({
    port: int32(),
    node: obj({ state: arr(strEnum(NODE_STATES)) }),
    nodes: obj({
      allocated: int32(), idle: int32(), other: int32(), total: int32(),
      hostnames: arr(str(), 1_000_000), addresses: arr(str(), 1_000_000), nodes: arr(str(), 1_000_000),
    }),
    cpus: obj({
      allocated: int32(), idle: int32(), other: int32(), total: int32(), minimum: int32(), maximum: int32(),
      load: range(int32), per_node: obj({ max: Uint32NoVal }),
    }),
    memory: obj({ minimum: int64(), maximum: int64(), free: obj({ minimum: Uint64NoVal, maximum: Uint64NoVal }), allocated: int64() }),
    features: obj({ total: str(), active: str() }),
    gres: obj({ total: str(), used: str() }),
    cluster: str(), comment: str(), extra: str(), reason: str(), reservation: str(),
    sockets: range(int32), cores: range(int32), threads: range(int32), disk: range(int64), weight: range(int32),
    partition: Partition,
  }),
);

export const SinfoResp = named("openapi_sinfo_resp", obj({ sinfo: arr(SinfoData, 1_000_000), ...envelopeProps }, ["sinfo"]));

/** Published under components/schemas although no path returns them. */
export const CLI_ONLY_SCHEMAS = [SinfoResp, StepInfoResp, ListPidsResp] as const;
