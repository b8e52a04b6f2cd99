/** The order module's statements: the package catalogue (`packages.ts`) and orders with their payment (`orders.ts`). */
export { OrderPackageRepository, type PackageFilter, type PackageRow } from './packages.ts';
export {
  OrderRepository,
  type NewLine,
  type OrderFilter,
  type OrderLineRow,
  type OrderReach,
  type OrderRow,
} from './orders.ts';
