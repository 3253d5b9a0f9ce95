/** A store's address for npm start's banner: never a password, in the URL's user part or its query (`?password=`). */
export function withoutPassword(url: string): string;
