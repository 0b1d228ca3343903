import { Alert, Button, Group, Stack, TextInput, Textarea } from '@mantine/core';
import { CatalogModal } from '../../components/CatalogModal';
import { useState, type FormEvent } from 'react';
import { M } from '../../../common/messages';
import { SLUG_PATTERN, autoSlug } from '../../../common/slug';
import { messageOf } from '../../api/client';
import { useCreateService, type Service } from '../../api/services';
import { IconUpload } from '../../components/IconUpload';
import { ServiceSlugInput } from '../../components/ServiceSlugInput';

interface Props {
  opened: boolean;
  onClose: () => void;
  onCreated: (service: Service) => void;
}

const EMPTY = { name: '', slug: '', description: '', serviceOwner: '', subscriptionModel: '' };

type FieldErrors = Partial<Record<'name' | 'slug', string>>;

/** The Create Service form: the slug follows the name until it is edited by hand (spec section 4). */
export function CreateServiceModal({ opened, onClose, onCreated }: Props) {
  const [form, setForm] = useState(EMPTY);
  const [icon, setIcon] = useState<string | null>(null);
  const [slugTouched, setSlugTouched] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const create = useCreateService();

  const reset = () => {
    setForm(EMPTY);
    setIcon(null);
    setSlugTouched(false);
    setErrors({});
    setServerError(null);
  };

  const close = () => {
    reset();
    onClose();
  };

  const setName = (name: string) => setForm((f) => ({ ...f, name, slug: slugTouched ? f.slug : autoSlug(name) }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setServerError(null);
    const next: FieldErrors = {};
    if (!form.name.trim()) next.name = M.serviceNameRequired;
    if (!form.slug.trim()) next.slug = M.slugRequired;
    else if (!SLUG_PATTERN.test(form.slug)) next.slug = M.slugPattern;
    setErrors(next);
    if (Object.keys(next).length) return;
    try {
      const service = await create.mutateAsync({
        name: form.name.trim(),
        slug: form.slug,
        description: form.description,
        service_owner: form.serviceOwner,
        subscription_model: form.subscriptionModel,
        icon_url: icon,
      });
      reset();
      onCreated(service);
    } catch (err) {
      setServerError(messageOf(err, M.failedCreateService));
    }
  };

  return (
    <CatalogModal opened={opened} onClose={close} title="Create Service" size="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {serverError ? (
            <Alert color="red" role="alert">
              {serverError}
            </Alert>
          ) : null}
          <TextInput label="Name" required value={form.name} onChange={(e) => setName(e.currentTarget.value)} error={errors.name} data-autofocus />
          <ServiceSlugInput
            value={form.slug}
            onChange={(slug) => {
              setSlugTouched(true);
              setForm((f) => ({ ...f, slug }));
            }}
            error={errors.slug}
          />
          <Textarea label="Description" rows={3} value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} />
          <TextInput label="Service Owner" value={form.serviceOwner} onChange={(e) => setForm({ ...form, serviceOwner: e.currentTarget.value })} />
          <Textarea
            label="Subscription Model"
            rows={3}
            value={form.subscriptionModel}
            onChange={(e) => setForm({ ...form, subscriptionModel: e.currentTarget.value })}
          />
          <IconUpload value={icon} onChange={setIcon} />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create Service
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}
