import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { TrafficPackages } from '../../../db/generated.ts';
import { defineQueries } from '../../../db/query-spec.ts';

export type PackageRow = Selectable<TrafficPackages>;

/** What the package list filters by: on shelf only (customers), a name, and the SIM it must fit. */
export interface PackageFilter {
  onShelfOnly: boolean;
  keyword?: string;
  fits?: { carrier: string; planMb: number };
  pageNo: number;
  pageSize: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** The condition a package must meet to fit a SIM of this carrier and plan. */
const fits = (carrier: string, planMb: number) =>
  sql<boolean>`(cardinality(carriers) = 0 or ${carrier} = any(carriers))
      and (plan_min_mb is null or plan_min_mb <= ${planMb}) and (plan_max_mb is null or plan_max_mb >= ${planMb})`;

/** The statements of the traffic package catalogue (`traffic_packages`). */
export class OrderPackageRepository {
  constructor(private db: Db) {}

  findById(id: number): Promise<PackageRow | undefined> {
    return this.db.selectFrom('traffic_packages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A page of the packages of the filter in their sort order, and how many in all. */
  async listPage(f: PackageFilter): Promise<{ rows: PackageRow[]; total: number }> {
    let query = this.db.selectFrom('traffic_packages');
    if (f.onShelfOnly) query = query.where('on_shelf', '=', true);
    if (f.keyword) query = query.where('name', 'ilike', `%${escapeLike(f.keyword)}%`);
    if (f.fits) query = query.where(fits(f.fits.carrier, f.fits.planMb));
    const [rows, total] = await Promise.all([
      query
        .selectAll()
        .orderBy('sort')
        .orderBy('id')
        .limit(f.pageSize)
        .offset((f.pageNo - 1) * f.pageSize)
        .execute(),
      query.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  insert(values: Insertable<TrafficPackages>): Promise<PackageRow> {
    return this.db.insertInto('traffic_packages').values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Sets the given fields (and `updated_at`); the row after, or undefined when there is none. */
  update(id: number, set: Updateable<TrafficPackages>): Promise<PackageRow | undefined> {
    return this.db
      .updateTable('traffic_packages')
      .set({ ...set, updated_at: sql`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes the package (sold lines keep their snapshot of it; their link is cleared). */
  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('traffic_packages').where('id', '=', id).execute();
  }
}

const shelfRow = {
  name: '10 GB / 30 days',
  data_mb: 10240,
  validity_days: 30,
  price_fen: 3000,
  on_shelf: true,
  per_sim_limit: 2,
  carriers: ['China Mobile'],
  plan_min_mb: null,
  plan_max_mb: 102400,
  sort: 1,
};

export const orderPackageQueries = defineQueries(OrderPackageRepository, {
  findById: [[21]],
  listPage: [
    { args: [{ onShelfOnly: false, pageNo: 1, pageSize: 20 }], results: [[], [{ n: 0 }]] },
    {
      args: [
        {
          onShelfOnly: true,
          keyword: '10_GB',
          fits: { carrier: 'China Mobile', planMb: 2048 },
          pageNo: 2,
          pageSize: 20,
        },
      ],
      results: [[], [{ n: 0 }]],
    },
  ],
  insert: [{ args: [shelfRow], results: [[{ id: 21 }]] }],
  update: [[21, { price_fen: 2800, on_shelf: false }]],
  delete: [[21]],
});
