/**
 * What a native server made outside its run folder: the folder of each tablespace an init
 * created with a LOCATION (`CREATE TABLESPACE … LOCATION '/dir'`). The server makes
 * `<dir>/PG_<major>_<catalog version>` (TABLESPACE_VERSION_DIRECTORY, src/include/catalog/catversion.h)
 * and links it from `<data>/pg_tblspc/<oid>`; a run folder removed without it leaves that folder,
 * and the next identical start's CREATE TABLESPACE then fails ("directory … already in use as a
 * tablespace", issue #35).
 */
import { isAbsolute, join } from 'node:path';
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';

/**
 * Removes the tablespace folders the server of `dataDir` made outside it: for each link
 * `pg_tblspc/<oid>` to an absolute folder, that folder's `PG_<major>_<n>` subfolders (the major
 * from PG_VERSION), each only when it is a folder (not a link) of the data directory's owner:
 * the server's user made it. The location itself stays (its creator made it). Call it once the
 * server has stopped, for a run folder that is the run's own (isOurRunDir).
 * @returns one text per folder not removed; [] when none was left (or there were none)
 */
export function removeTablespaces(dataDir: string): string[] {
  let owner: number;
  let major: string;
  let links: string[];
  try {
    owner = lstatSync(dataDir).uid;
    major = readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim();
    links = readdirSync(join(dataDir, 'pg_tblspc'));
  } catch {
    return []; // no cluster (yet): no tablespace
  }
  if (!/^\d+$/.test(major)) return [];
  const made = new RegExp(`^PG_${major}_\\d+$`);
  const problems: string[] = [];
  for (const oid of links.filter((n) => /^\d+$/.test(n))) {
    let location: string;
    let names: string[];
    try {
      const link = join(dataDir, 'pg_tblspc', oid);
      if (!lstatSync(link).isSymbolicLink()) continue; // an in-place tablespace: inside the data directory
      location = readlinkSync(link);
      if (!isAbsolute(location)) continue;
      names = readdirSync(location).filter((n) => made.test(n));
    } catch {
      continue; // the location is gone
    }
    for (const name of names) {
      const path = join(location, name);
      try {
        const s = lstatSync(path);
        if (!s.isDirectory() || s.uid !== owner) {
          problems.push(`Not removing tablespace folder ${path}: not a folder of the server's user`);
          continue;
        }
        rmSync(path, { recursive: true, force: true });
      } catch (error) {
        problems.push(`Could not remove tablespace folder ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return problems;
}
