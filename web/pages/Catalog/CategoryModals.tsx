import { Button, Group, Stack, TextInput } from '@mantine/core';
import { CatalogModal } from '../../components/CatalogModal';
import { useState, type FormEvent } from 'react';
import { M } from '../../../common/messages';
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

function CreateCategoryForm({ serviceId, position, onClose }: Omit<CreateProps, 'opened'>) {
  const [name, setName] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const { error, setError, run } = useModalAction(onClose);
  const create = useCreateCategory(serviceId);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!name.trim()) return setFieldError(M.categoryNameRequired);
    setFieldError(null);
    await run(() => create.mutateAsync({ name: name.trim(), position }), M.failedCreateCategory);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorBox error={error} />
        <TextInput label="Name" required placeholder={NAME_PLACEHOLDER} value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError} data-autofocus />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
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

function EditCategoryForm({ serviceId, category, onClose }: { serviceId: string; category: Category; onClose: () => void }) {
  const [name, setName] = useState(category.name);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const { error, setError, run } = useModalAction(onClose);
  const [confirming, setConfirming] = useState(false);
  const update = useUpdateCategory(serviceId);
  const remove = useDeleteCategory(serviceId);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!name.trim()) return setFieldError(M.categoryNameRequired);
    setFieldError(null);
    await run(() => update.mutateAsync({ id: category.id, name: name.trim() }), M.failedUpdateCategory);
  };

  const confirmDelete = () => run(() => remove.mutateAsync(category.id), M.failedDeleteCategory, () => setConfirming(false));

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
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorBox error={error} />
        <TextInput label="Name" required placeholder={NAME_PLACEHOLDER} value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError} data-autofocus />
        <Group justify="space-between">
          <Button color="red.9" variant="outline" onClick={() => setConfirming(true)}>
            Delete Category
          </Button>
          <Group gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={update.isPending}>
              Save Changes
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

export function EditCategoryModal({ serviceId, category, onClose }: { serviceId: string; category: Category | null; onClose: () => void }) {
  return (
    <CatalogModal opened={category !== null} onClose={onClose} title="Edit Category">
      {category ? <EditCategoryForm key={category.id} serviceId={serviceId} category={category} onClose={onClose} /> : null}
    </CatalogModal>
  );
}
