import { Button, Group, TextInput } from '@mantine/core';
import { CatalogModal, ModalCancelButton, useModalDirty } from '../../components/CatalogModal';
import { M } from '../../../common/messages';
import { createCategorySchema, updateCategorySchema } from '../../../common/schemas/catalog';
import { useSchemaForm } from '../../lib/schemaForm';
import { DONE, notifySuccess } from '../../lib/notify';
import { useCreateCategory, useDeleteCategory, useUpdateCategory, type Category } from '../../api/catalog';
import { CatalogForm, EditActions, useDeleteStep } from './CatalogForm';
import { useModalAction } from './useModalAction';

const NAME_PLACEHOLDER = 'e.g., Core Features';

interface CreateProps {
  serviceId: string;
  opened: boolean;
  position: number;
  onClose: () => void;
}

// The name as the create request checks it; the service and the position are not typed.
const newCategorySchema = createCategorySchema.pick({ name: true });

function CreateCategoryForm({ serviceId, position, onClose }: Omit<CreateProps, 'opened'>) {
  const form = useSchemaForm(newCategorySchema, { name: '' });
  useModalDirty(form.isDirty());
  const { error, setError, run } = useModalAction(onClose);
  const create = useCreateCategory(serviceId);

  const submit = async ({ name }: typeof form.values) => {
    await run(async () => {
      await create.mutateAsync({ name: name.trim(), position });
      form.reset();
      notifySuccess(DONE.categoryCreated);
    }, M.failedCreateCategory);
  };

  return (
    <CatalogForm form={form} onValid={submit} onError={() => setError(null)} error={error}>
      <TextInput label="Name" required placeholder={NAME_PLACEHOLDER} {...form.getInputProps('name')} data-autofocus />
      <Group justify="flex-end">
        <ModalCancelButton />
        <Button type="submit" loading={create.isPending}>
          Create Category
        </Button>
      </Group>
    </CatalogForm>
  );
}

export function CreateCategoryModal({ opened, ...props }: CreateProps) {
  return (
    <CatalogModal opened={opened} onClose={props.onClose} title="Create Category">
      <CreateCategoryForm {...props} />
    </CatalogModal>
  );
}

function EditCategoryForm({ category, onClose }: { category: Category; onClose: () => void }) {
  const form = useSchemaForm(updateCategorySchema, { name: category.name });
  useModalDirty(form.isDirty());
  const { error, setError, run } = useModalAction(onClose);
  const update = useUpdateCategory();
  const remove = useDeleteCategory();

  const submit = async ({ name }: typeof form.values) => {
    await run(async () => {
      await update.mutateAsync({ id: category.id, name: name.trim() });
      form.resetDirty();
      notifySuccess(DONE.categorySaved);
    }, M.failedUpdateCategory);
  };

  const deletion = useDeleteStep(run, {
    remove: () => remove.mutateAsync(category.id),
    busy: remove.isPending,
    done: DONE.categoryDeleted,
    fallback: M.failedDeleteCategory,
    message: `Delete the category "${category.name}" and all its aspects?`,
    confirmLabel: 'Delete Category',
  });
  if (deletion.view) return deletion.view;

  return (
    <CatalogForm form={form} onValid={submit} onError={() => setError(null)} error={error}>
      <TextInput label="Name" required placeholder={NAME_PLACEHOLDER} {...form.getInputProps('name')} data-autofocus />
      <EditActions deleteLabel="Delete Category" onDelete={deletion.ask} saving={update.isPending} />
    </CatalogForm>
  );
}

export function EditCategoryModal({ category, onClose }: { category: Category | null; onClose: () => void }) {
  return (
    <CatalogModal opened={category !== null} onClose={onClose} title="Edit Category">
      {category ? <EditCategoryForm key={category.id} category={category} onClose={onClose} /> : null}
    </CatalogModal>
  );
}
