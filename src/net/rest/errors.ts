/**
 * @module rest/errors
 * The one error type of the REST layer and its table: Slurm's error number
 * and name, the HTTP status, and the response body slurmrestd sends (the
 * usual envelope with `errors[]` filled). Handlers throw RestError; the app's
 * onError turns it (and anything unexpected) into such a body, never a crash.
 */
export const REST_ERRORS = {
  InvalidQuery: { errno: 9000, error: "Query is invalid", status: 400 },
  FailParsing: { errno: 9001, error: "Failed to parse query", status: 400 },
  InvalidJobDesc: { errno: 9002, error: "Jobs description entry not found, empty or not dictionary or list", status: 400 },
  MissingUid: { errno: 9004, error: "User ID was not provided or is invalid", status: 400 },
  AuthRequired: { errno: 6002, error: "Authentication failure", status: 401 },
  AccessDenied: { errno: 2002, error: "Access/permission denied", status: 403 },
  InvalidJobId: { errno: 2017, error: "Invalid job id specified", status: 404 },
  InvalidNodeName: { errno: 2018, error: "Invalid node name specified", status: 404 },
  InvalidPartition: { errno: 2000, error: "Invalid partition name specified", status: 404 },
  NotFound: { errno: 9000, error: "Unable to find requested URL", status: 404 },
  NotImplemented: { errno: 9000, error: "Requested operation is not supported by Spur", status: 501 },
  TooLarge: { errno: 9001, error: "Request body too large", status: 413 },
  RateLimited: { errno: 9000, error: "Too many requests from this user", status: 429 },
  Rejected: { errno: 2002, error: "Request rejected by the controller", status: 400 },
  Unavailable: { errno: 1007, error: "Unable to contact slurm controller (connect failure)", status: 503 },
  Internal: { errno: 9000, error: "Unexpected error", status: 500 },
} as const;

export type RestErrorKind = keyof typeof REST_ERRORS;

export class RestError extends Error {
  constructor(
    readonly kind: RestErrorKind,
    readonly description: string,
    readonly source = "",
    /** Override the table's error text (e.g. the controller's own wording). */
    readonly errorText?: string,
    readonly errno?: number,
  ) {
    super(description);
  }
  get status(): number {
    return REST_ERRORS[this.kind].status;
  }
  item(): { description: string; error_number: number; error: string; source: string } {
    const e = REST_ERRORS[this.kind];
    return { description: this.description, error_number: this.errno ?? e.errno, error: this.errorText ?? e.error, source: this.source };
  }
}
