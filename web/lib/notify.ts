import { notifications, type NotificationData } from '@mantine/notifications';
import { NOTIFICATION_AUTOCLOSE_MS } from '../../common/limits';

/**
 * One message at a time (docs/decisions/0156): a new one takes the place of the one shown, so
 * messages never pile up over the page, and the latest is the one that counts.
 */
export function notifyOne(data: NotificationData) {
  notifications.clean();
  notifications.show({ closeButtonProps: { 'aria-label': 'Close notification' }, ...data });
}

/** A finished save or deletion is acknowledged the same way everywhere: a short notification that closes itself. */
export function notifySuccess(message: string) {
  notifyOne({ color: 'green', message, role: 'status', autoClose: NOTIFICATION_AUTOCLOSE_MS, withCloseButton: true });
}

/** A refusal where the specification gives a closable notification (the dashboard's): it closes itself after a while. */
export function notifyError(message: string) {
  notifyOne({ color: 'red', message, autoClose: NOTIFICATION_AUTOCLOSE_MS, withCloseButton: true });
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
