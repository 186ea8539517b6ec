/** What a database token may do (reference 10): the access modes the database API issues tokens with. */
export const TokenAuthorization = ['full-access', 'read-only'] as const;
