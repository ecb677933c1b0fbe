/** A LIKE pattern matching `text` anywhere, with LIKE's wildcards in it taken literally. */
export const likeSubstring = (text: string) => `%${text.replace(/[\\%_]/g, "\\$&")}%`;
