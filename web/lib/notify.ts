import { notifications } from '@mantine/notifications';
import { NOTIFICATION_AUTOCLOSE_MS } from '../../common/limits';

/** A finished save or deletion is acknowledged the same way everywhere: a short notification that closes itself. */
export function notifySuccess(message: string) {
  notifications.show({
    color: 'green',
    message,
    role: 'status',
    autoClose: NOTIFICATION_AUTOCLOSE_MS,
    withCloseButton: true,
    closeButtonProps: { 'aria-label': 'Close notification' },
  });
}

/** What each acknowledged action says. */
export const DONE = {
  serviceCreated: 'Service created.',
  serviceImported: 'Service imported.',
  categoryCreated: 'Category created.',
  categorySaved: 'Category saved.',
  categoryDeleted: 'Category deleted.',
  aspectCreated: 'Aspect created.',
  aspectSaved: 'Aspect saved.',
  aspectDeleted: 'Aspect deleted.',
  availabilitySaved: 'Availability saved.',
  roleAdded: 'Actor role added.',
  roleDeleted: 'Actor role deleted.',
  templateAdded: 'Quick template added.',
  templateDeleted: 'Quick template deleted.',
  serviceArchived: 'Service archived.',
  serviceUnarchived: 'Service unarchived.',
  serviceDeleted: 'Service deleted.',
  tenantArchived: 'Tenant archived.',
  tenantUnarchived: 'Tenant unarchived.',
  tenantDeleted: 'Tenant deleted.',
  userDeleted: 'User deleted.',
  roleChanged: 'Role changed.',
  invitationWithdrawn: 'Invitation withdrawn.',
  assignmentRoleChanged: 'Role changed.',
  assignmentRemoved: 'Removed from this service.',
  webhookEnabled: 'Webhook enabled.',
} as const;
