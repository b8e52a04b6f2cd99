import { defineModule } from '../../plugins/module.ts';
import { DepartmentService, departmentRoutes } from './index.ts';

/** Departments of an account: the tree data scopes follow. */
export const departmentModule = defineModule({
  name: 'department',
  api: async (api) => {
    await api.register(departmentRoutes, { departments: new DepartmentService(api.core.db), events: api.core.events });
  },
});
