/**
 * @module rest/schemas-util
 * The /util/ side (v0.0.44 on): hostlist expansion and compression.
 */
import { arr, named, obj, str } from "./schema.ts";
import { envelopeProps } from "./schemas-common.ts";

export const HostnamesReq = named("openapi_hostlist_req_resp", obj({ hostlist: str(65536) }, ["hostlist"]));
export const HostnamesResp = named("openapi_hostnames_req_resp", obj({ hostnames: arr(str(256), 100_000), ...envelopeProps }, ["hostnames"]));
export const HostlistReq = named("openapi_hostnames_req", obj({ hostnames: arr(str(256), 100_000) }, ["hostnames"]));
export const HostlistResp = named("openapi_hostlist_resp", obj({ hostlist: str(), ...envelopeProps }, ["hostlist"]));
