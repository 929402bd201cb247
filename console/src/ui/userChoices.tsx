// A fieldset of the organization's users, one checkbox each: who is in a set (the root quorum's
// members, the users a new tag is given to).

export interface ChoosableUser {
  userId: string;
  userName: string;
  userEmail?: string;
}

export function UserChoices(props: {
  legend: string;
  /** Prefix of each checkbox's id (`<prefix>-<userId>`). */
  idPrefix: string;
  users: readonly ChoosableUser[];
  chosen: ReadonlySet<string>;
  onChange: (chosen: Set<string>) => void;
  /** Show each user's email address after its name. */
  withEmail?: boolean;
}) {
  return (
    <fieldset class="choices">
      <legend>{props.legend}</legend>
      {props.users.map((u) => (
        <label key={u.userId} class="choice" for={`${props.idPrefix}-${u.userId}`}>
          <input
            type="checkbox"
            id={`${props.idPrefix}-${u.userId}`}
            checked={props.chosen.has(u.userId)}
            onChange={(e) => {
              const next = new Set(props.chosen);
              if ((e.currentTarget as HTMLInputElement).checked) next.add(u.userId);
              else next.delete(u.userId);
              props.onChange(next);
            }}
          />{' '}
          {u.userName}
          {props.withEmail && u.userEmail ? ` (${u.userEmail})` : ''}
        </label>
      ))}
    </fieldset>
  );
}
