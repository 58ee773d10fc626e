/**
 * @module sched/plan/queue-facts
 * What the main pass needs of each queued job before it is tried: its id and Partition= text,
 * why it may not run yet (eligibility, its reservation), whether its deadline has passed and
 * whether it is part of a het job. They are noted while computePriorities reads the job anyway
 * (its priorityValues visitor), so that the main loop and the jobs left behind it read a job's
 * record only to try it: with 100k queued jobs whose records fit in no cache, reading every
 * record a second time was the largest part of a pass.
 *
 * Facts are by index in Priorities.pending. Jobs queued afterwards (held or begin-time jobs put
 * back in the queue, held-jobs.ts, begin-jobs.ts) are appended to that list; `complete` notes
 * them. Each fact is what the pass computed from the job in its loop before; the one that moves
 * during a pass, the running count an array throttle compares with, is left to the pass
 * (`eligibility` undefined).
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { eligibility, type DependencyIndex } from "./eligibility.ts";
import { resvReason } from "../resv/resv-check.ts";
import { deadlinePassed } from "../model/deadline.ts";
import { isHetComponent, isHetFollower } from "../model/het.ts";

const EXPIRED = 1;
const HET_COMPONENT = 2;
const HET_FOLLOWER = 4;
/** No array is running anything: eligibility's answer without the array throttle's test. */
const NO_RUNNING: ReadonlyMap<number, number> = new Map();

export class QueueFacts {
  private readonly ids: number[] = [];
  private readonly partitions: string[] = [];
  private readonly eligible: (string | undefined)[] = [];
  private readonly reservation: string[] = [];
  private readonly flags: number[] = [];

  constructor(
    private readonly state: ClusterState,
    private readonly now: number,
    private readonly depsOf: (job: JobRecord) => DependencyIndex,
  ) {}

  /** Notes the next queued job (index `this.count`). */
  readonly note = (job: JobRecord): void => {
    const info = job.info;
    this.ids.push(info.jobId);
    this.partitions.push(info.partition);
    const why = eligibility(this.state, job, this.now, this.depsOf(job), NO_RUNNING);
    // a throttled array's running count changes as the pass starts its tasks: asked in the pass
    this.eligible.push(why === "" && job.arrayThrottle > 0 && job.arrayPending.length > 0 ? undefined : why);
    this.reservation.push(resvReason(this.state, job, this.now));
    const het = isHetComponent(info) ? HET_COMPONENT | (isHetFollower(info) ? HET_FOLLOWER : 0) : 0;
    this.flags.push((deadlinePassed(job, this.now) ? EXPIRED : 0) | het);
  };

  /** Notes the jobs of `pending` after those noted so far. */
  complete(pending: readonly JobRecord[]): void {
    for (let i = this.ids.length; i < pending.length; i++) this.note(pending[i] as JobRecord);
  }

  id(i: number): number {
    return this.ids[i] as number;
  }

  partition(i: number): string {
    return this.partitions[i] as string;
  }

  /** eligibility()'s answer, or undefined where the pass must ask (an array throttle). */
  eligibility(i: number): string | undefined {
    return this.eligible[i];
  }

  /** resvReason()'s answer. */
  reservationReason(i: number): string {
    return this.reservation[i] as string;
  }

  expired(i: number): boolean {
    return ((this.flags[i] as number) & EXPIRED) !== 0;
  }

  hetComponent(i: number): boolean {
    return ((this.flags[i] as number) & HET_COMPONENT) !== 0;
  }

  hetFollower(i: number): boolean {
    return ((this.flags[i] as number) & HET_FOLLOWER) !== 0;
  }
}
