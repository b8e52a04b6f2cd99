/** Strings of the department screen (issue 12), namespaced under `department`. */
export default {
  zh: {
    department: {
      title: '部门管理',
      subtitle: '拖动部门可调整上下级与顺序；只能删除没有下级部门、用户和设备的部门',
      readOnly: '你可以查看部门结构，但没有修改权限',
      ownScope: '你的数据权限仅限本人：可以查看部门结构，但不能修改',
      departmentScope: '你可以在本部门下新建部门，调整或删除本部门以下的部门；拖动可调整上下级与顺序',
      add: '新建部门',
      refresh: '刷新',
      empty: '还没有部门，点击“新建部门”添加',
      members_one: '{{count}} 名成员',
      members_other: '{{count}} 名成员',
      cycle: '不能把部门移动到它自己或它的下级部门中',
      action: {
        addChild: '添加下级部门',
        rename: '重命名',
        delete: '删除',
      },
      confirm: {
        deleteTitle: '删除部门“{{name}}”？',
        deleteContent: '部门下还有下级部门、用户或设备时不能删除。',
      },
      done: {
        added: '部门已创建',
        renamed: '部门已重命名',
        moved: '部门已移动',
        deleted: '部门已删除',
      },
      form: {
        addTitle: '新建部门',
        addChildTitle: '在“{{name}}”下新建部门',
        renameTitle: '重命名“{{name}}”',
        name: '部门名称',
        namePlaceholder: '如：华东销售部',
        nameRequired: '请输入部门名称',
        nameMax: '部门名称最多 {{n}} 个字符',
        nameTaken: '同一上级下已有同名部门',
        save: '保存',
        cancel: '取消',
      },
    },
  },
  en: {
    department: {
      title: 'Departments',
      subtitle:
        'Drag a department to change its parent or order; only a department without sub-departments, users and devices can be deleted',
      readOnly: 'You can see the departments but not change them',
      ownScope: 'Your data scope is your own data: you can see the departments but not change them',
      departmentScope:
        'You can add departments under your own, and change or delete those below it; drag one to change its parent or order',
      add: 'New department',
      refresh: 'Refresh',
      empty: 'No departments yet. Choose "New department" to add one.',
      members_one: '{{count}} member',
      members_other: '{{count}} members',
      cycle: 'A department cannot be moved into itself or one of its sub-departments',
      action: {
        addChild: 'Add a sub-department',
        rename: 'Rename',
        delete: 'Delete',
      },
      confirm: {
        deleteTitle: 'Delete the department "{{name}}"?',
        deleteContent: 'A department with sub-departments, users or devices cannot be deleted.',
      },
      done: {
        added: 'Department created',
        renamed: 'Department renamed',
        moved: 'Department moved',
        deleted: 'Department deleted',
      },
      form: {
        addTitle: 'New department',
        addChildTitle: 'New department under "{{name}}"',
        renameTitle: 'Rename "{{name}}"',
        name: 'Name',
        namePlaceholder: 'e.g. East sales',
        nameRequired: 'Enter the name of the department',
        nameMax: 'At most {{n}} characters',
        nameTaken: 'A department with this name already exists under the same parent',
        save: 'Save',
        cancel: 'Cancel',
      },
    },
  },
};
