/**
 * The OS user native mode runs PostgreSQL's programs as, shared by every room of native/ (the
 * source's checks, the cluster's copy, the server's run). Who it is: run/postgres.ts runAsUser.
 */

/**
 * An OS user to run server programs as (PostgreSQL refuses to run as root: manual, "Starting the
 * Database Server"): its name, uid and gid.
 */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}
