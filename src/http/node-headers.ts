/**
 * Headers only a node sends to another when it forwards a request to the session's owner
 * (spec section 9). A client's own headers of these names never cross: forwarding sends a closed
 * list of the client's headers (`OwnerForwarding`), and sets these itself.
 */

/** Marks a request one node forwarded to another: it is answered there, never forwarded again. */
export const FORWARDED_HEADER = 'pn-forwarded-by';

/**
 * The forwarding node's own request id, so that the owner's request line names it
 * (`forwarded_request_id`) beside the owner's own `request_id`.
 */
export const FORWARDING_REQUEST_ID_HEADER = 'pn-forwarding-request-id';
