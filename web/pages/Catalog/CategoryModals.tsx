import { Button, Group, Stack, TextInput } from '@mantine/core';
import { CatalogModal, ModalCancelButton, useModalDirty } from '../../components/CatalogModal';
import { useState } from 'react';
import { M } from '../../../common/messages';
import { createCategorySchema, updateCategorySchema } from '../../../common/schemas/catalog';
import { useSchemaForm } from '../../lib/schemaForm';
import { DONE, notifySuccess } from '../../lib/notify';
import { useCreateCategory, useDeleteCategory, useUpdateCategory, type Category } from '../../api/catalog';
import { ErrorBox } from './ErrorBox';
import { InlineConfirm } from './InlineConfirm';
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
    <form
      onSubmit={form.onSubmit(
        (values) => void submit(values),
        () => setError(null),
      )}
      noValidate
    >
      <Stack gap="md">
        <ErrorBox error={error} />
        <TextInput label="Name" required placeholder={NAME_PLACEHOLDER} {...form.getInputProps('name')} data-autofocus />
        <Group justify="flex-end">
          <ModalCancelButton />
          <Button type="submit" loading={create.isPending}>
            Create Category
          </Button>
        </Group>
      </Stack>
    </form>
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
  const [confirming, setConfirming] = useState(false);
  const update = useUpdateCategory();
  const remove = useDeleteCategory();

  const submit = async ({ name }: typeof form.values) => {
    await run(async () => {
      await update.mutateAsync({ id: category.id, name: name.trim() });
      form.resetDirty();
      notifySuccess(DONE.categorySaved);
    }, M.failedUpdateCategory);
  };

  const confirmDelete = () =>
    run(
      async () => {
        await remove.mutateAsync(category.id);
        notifySuccess(DONE.categoryDeleted);
      },
      M.failedDeleteCategory,
      () => setConfirming(false),
    );

  if (confirming) {
    return (
      <InlineConfirm
        message={`Delete the category "${category.name}" and all its aspects?`}
        confirmLabel="Delete Category"
        busy={remove.isPending}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setConfirming(false)}
      />
    );
  }
  return (
    <form
      onSubmit={form.onSubmit(
        (values) => void submit(values),
        () => setError(null),
      )}
      noValidate
    >
      <Stack gap="md">
        <ErrorBox error={error} />
        <TextInput label="Name" required placeholder={NAME_PLACEHOLDER} {...form.getInputProps('name')} data-autofocus />
        <Group justify="space-between">
          <Button color="red.9" variant="outline" onClick={() => setConfirming(true)}>
            Delete Category
          </Button>
          <Group gap="sm">
            <ModalCancelButton />
            <Button type="submit" loading={update.isPending}>
              Save Changes
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

export function EditCategoryModal({ category, onClose }: { category: Category | null; onClose: () => void }) {
  return (
    <CatalogModal opened={category !== null} onClose={onClose} title="Edit Category">
      {category ? <EditCategoryForm key={category.id} category={category} onClose={onClose} /> : null}
    </CatalogModal>
  );
}
