/** The department module's public entry: the tenant's department tree (issue 12). */
export { DepartmentService } from './service.ts';
export { departmentRoutes } from './routes.ts';
