import { Alert, Button, Group, Stack, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { flushSync } from 'react-dom';
import { CatalogModal, ModalCancelButton } from '../../components/CatalogModal';
import { M } from '../../../common/messages';
import { autoSlug } from '../../../common/slug';
import { createServiceSchema } from '../../../common/schemas/services';
import { messageOf } from '../../api/client';
import { useCreateService, type Service } from '../../api/services';
import { IconUpload } from '../../components/IconUpload';
import { ServiceSlugInput } from '../../components/ServiceSlugInput';
import { quarterOptions, TimelineFields } from '../../components/TimelineFields';
import { defaultTimeline } from '../../../common/quarters';
import { keepFieldFocus, useSchemaForm } from '../../lib/schemaForm';
import { DONE, notifySuccess } from '../../lib/notify';

interface Props {
  opened: boolean;
  onClose: () => void;
  onCreated: (service: Service) => void;
}

// The request's own fields (the server also takes their camelCase twins), checked by its schema.
const START = defaultTimeline();
const EMPTY = {
  name: '',
  slug: '',
  description: '',
  serviceOwner: '',
  subscriptionModel: '',
  iconUrl: null as string | null,
  // The current quarter and the seven after it, as the server would choose; changed here at will.
  timeline: { first: START[0]!, last: START.at(-1)! },
};
const OPTIONS = quarterOptions(START);

/** The Create Service form: the slug follows the name until it is edited by hand (spec section 4). */
export function CreateServiceModal({ opened, onClose, onCreated }: Props) {
  const form = useSchemaForm(createServiceSchema, EMPTY);
  const [slugTouched, setSlugTouched] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const create = useCreateService();

  const reset = () => {
    form.reset();
    setSlugTouched(false);
    setServerError(null);
  };

  const close = () => {
    reset();
    onClose();
  };

  const submit = async (values: typeof EMPTY) => {
    setServerError(null);
    try {
      const service = await create.mutateAsync({
        name: values.name.trim(),
        slug: values.slug,
        description: values.description,
        service_owner: values.serviceOwner,
        subscription_model: values.subscriptionModel,
        icon_url: values.iconUrl,
        timeline: values.timeline,
      });
      // Nothing is left unsaved before the new service opens.
      flushSync(reset);
      notifySuccess(DONE.serviceCreated);
      onCreated(service);
    } catch (err) {
      setServerError(messageOf(err, M.failedCreateService));
    }
  };

  const name = form.getInputProps('name');
  const slug = form.getInputProps('slug');

  return (
    <CatalogModal opened={opened} onClose={close} title="Create Service" size="lg" dirty={form.isDirty()}>
      <form
        onSubmit={form.onSubmit(
          (values) => void submit(values),
          () => setServerError(null),
        )}
        noValidate
      >
        <Stack gap="sm">
          {serverError ? (
            <Alert color="red" role="alert">
              {serverError}
            </Alert>
          ) : null}
          <TextInput
            label="Name"
            required
            {...name}
            onChange={(e) => {
              const next = e.currentTarget.value;
              form.setFieldValue('name', next);
              if (!slugTouched) form.setFieldValue('slug', autoSlug(next));
            }}
            data-autofocus
          />
          <ServiceSlugInput
            {...slug}
            onChange={(e) => {
              setSlugTouched(true);
              form.setFieldValue('slug', e.currentTarget.value);
            }}
          />
          <Textarea label="Description" rows={3} {...form.getInputProps('description')} />
          <TextInput label="Service Owner" {...form.getInputProps('serviceOwner')} />
          <Textarea label="Subscription Model" rows={3} {...form.getInputProps('subscriptionModel')} />
          <IconUpload value={form.values.iconUrl} onChange={(icon) => form.setFieldValue('iconUrl', icon)} />
          <TimelineFields
            first={form.getInputProps('timeline.first')}
            last={form.getInputProps('timeline.last')}
            options={OPTIONS}
            error={form.errors.timeline ?? form.errors['timeline.first'] ?? form.errors['timeline.last'] ?? null}
          />
          <Group justify="flex-end" mt="sm">
            <ModalCancelButton />
            <Button type="submit" loading={create.isPending} onMouseDown={keepFieldFocus}>
              Create Service
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}
