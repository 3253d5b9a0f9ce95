/** A store's address for npm start's banner: never a password, in the URL's user part or its query (`?password=`). */
function withoutPassword(url) {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    for (const name of [...parsed.searchParams.keys()])
      if (/pass|secret|token|key/i.test(name)) parsed.searchParams.set(name, '***');
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(an address that is not a URL)';
  }
}

module.exports = { withoutPassword };
