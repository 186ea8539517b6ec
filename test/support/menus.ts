/** The menus of a message Slack was sent: each static_select's options, with their group's label. */
export interface SentOption {
  actionId: string;
  group: string;
  text: string;
  value: string;
}

interface SentBlock {
  type: string;
  elements?: {
    type: string;
    action_id: string;
    option_groups?: { label: { text: string }; options: { text: { text: string }; value: string }[] }[];
    options?: { text: { text: string }; value: string }[];
  }[];
}

export function menuOptionsIn(body: unknown): SentOption[] {
  const blocks = ((body as { blocks?: SentBlock[] } | undefined)?.blocks ?? []) as SentBlock[];
  return blocks.flatMap((block) =>
    block.type !== 'actions'
      ? []
      : (block.elements ?? [])
          .filter((element) => element.type === 'static_select')
          .flatMap((menu) => [
            ...(menu.option_groups ?? []).flatMap((group) =>
              group.options.map((o) => ({
                actionId: menu.action_id,
                group: group.label.text,
                text: o.text.text,
                value: o.value,
              })),
            ),
            ...(menu.options ?? []).map((o) => ({
              actionId: menu.action_id,
              group: '',
              text: o.text.text,
              value: o.value,
            })),
          ]),
  );
}
