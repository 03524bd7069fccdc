/* onyx-layout-expand.c: which groups show. A group is open when its scope path is in
 * the run's expansion set; the policies here choose that set, and say which box
 * stands for a group among its parent's children. */
#include "onyx-layout-private.h"

#include <string.h>

/* AUTO expansion opens groups while about this many boxes show. */
#define AUTO_VISIBLE_BOXES 200

/* A group with no items of its own and one subgroup is shown as that subgroup. */
Group *
onyx_layout_effective_group (Group *group)
{
  while (group->items->len == 0 && group->groups->len == 1)
    group = group->groups->pdata[0];
  return group;
}

/* The item of a group that holds exactly one (in any depth), else -1: such a group
 * is shown as its item, not as a box around it. */
static int
single_item (Group *group)
{
  if (group->n_items_total != 1)
    return -1;
  while (group->items->len == 0)
    group = group->groups->pdata[0];
  return g_array_index (group->items, int, 0);
}

char *
onyx_layout_subgroup_key (Run *run, Group *group)
{
  Group *shown;
  int item;

  if (onyx_layout_is_folded_member (run, group))
    group = group->stack;
  /* A stack is a box even when one of its members would show a single item. */
  if (group->members != NULL)
    return g_strdup_printf ("g:%s", group->path);
  shown = onyx_layout_effective_group (group);
  item = single_item (shown);
  return item >= 0 ? g_strdup_printf ("i:%d", item) : g_strdup_printf ("g:%s", shown->path);
}

GPtrArray *
onyx_layout_visible_subgroups (Run *run, Group *group)
{
  GPtrArray *visible = g_ptr_array_new ();

  if (group->members != NULL)
    group = onyx_layout_effective_group (onyx_layout_stack_drawn (run, group));
  for (guint i = 0; i < group->groups->len; i++)
    {
      Group *child = group->groups->pdata[i];
      if (onyx_layout_is_folded_member (run, child))
        {
          if (child->member_index == 0)
            g_ptr_array_add (visible, child->stack);
        }
      else
        g_ptr_array_add (visible, onyx_layout_effective_group (child));
    }
  return visible;
}

/* Boxes a group shows when open: its items and its visible subgroups (a subgroup
 * holding a single item shows that item); a stack's are those of its member. */
guint
onyx_layout_n_children (Run *run, Group *group)
{
  g_autoptr (GPtrArray) visible = onyx_layout_visible_subgroups (run, group);

  if (group->members != NULL)
    group = onyx_layout_effective_group (onyx_layout_stack_drawn (run, group));
  return group->items->len + visible->len;
}

static void
expand_all (Group *group, GHashTable *expanded)
{
  g_hash_table_add (expanded, g_strdup (group->path));
  for (guint i = 0; i < group->groups->len; i++)
    expand_all (group->groups->pdata[i], expanded);
}

static int
compare_groups_by_size (gconstpointer a, gconstpointer b)
{
  const Group *x = *(Group *const *) a, *y = *(Group *const *) b;
  return x->n_items_total < y->n_items_total ? 1 : x->n_items_total > y->n_items_total ? -1 : 0;
}

GHashTable *
onyx_layout_engine_expansion (OnyxLayoutEngine *engine, OnyxExpandMode mode,
                              const char *const *extra_expanded, const char *const *collapsed)
{
  GHashTable *expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Group *root = onyx_layout_effective_group (engine->root);

  g_hash_table_add (expanded, g_strdup (""));
  g_hash_table_add (expanded, g_strdup (root->path));
  if (mode == ONYX_EXPAND_ALL)
    expand_all (engine->root, expanded);
  else if (mode == ONYX_EXPAND_AUTO)
    {
      /* Open the biggest closed group while the boxes shown stay few. */
      /* Stacks fold, showing their first member. */
      g_autoptr (GPtrArray) closed = onyx_layout_visible_subgroups (NULL, root);
      guint visible = onyx_layout_n_children (NULL, root);
      while (closed->len > 0)
        {
          Group *group;
          g_autoptr (GPtrArray) inside = NULL;
          g_ptr_array_sort (closed, compare_groups_by_size);
          group = g_ptr_array_steal_index (closed, 0);
          if (visible + onyx_layout_n_children (NULL, group) - 1 > AUTO_VISIBLE_BOXES)
            continue;
          visible += onyx_layout_n_children (NULL, group) - 1;
          g_hash_table_add (expanded, g_strdup (group->path));
          inside = onyx_layout_visible_subgroups (NULL, group);
          g_ptr_array_extend (closed, inside, NULL, NULL);
        }
      /* A stack stays one box, opening it being asking for one of its members; the
       * groups inside open as they would have. */
      for (guint s = 0; s < engine->stacks->len; s++)
        g_hash_table_remove (expanded, ((Group *) engine->stacks->pdata[s])->path);
    }
  for (guint i = 0; extra_expanded != NULL && extra_expanded[i] != NULL; i++)
    {
      /* Opening a scope opens the scopes around it too. */
      const char *path = extra_expanded[i][0] == '/' ? extra_expanded[i] + 1 : extra_expanded[i];
      for (const char *slash = strchr (path, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
        g_hash_table_add (expanded, g_strndup (path, slash - path));
      g_hash_table_add (expanded, g_strdup (path));
    }
  /* A member opened (Find opens the scopes around a match) opens its stack at it. */
  for (guint s = 0; s < engine->stacks->len; s++)
    {
      Group *stack = engine->stacks->pdata[s];
      guint n_open = 0;
      for (guint m = 0; m < stack->members->len; m++)
        n_open += g_hash_table_contains (expanded, ((Group *) stack->members->pdata[m])->path);
      if (n_open > 0 && n_open < stack->members->len)
        g_hash_table_add (expanded, g_strdup (stack->path));
    }
  for (guint i = 0; collapsed != NULL && collapsed[i] != NULL; i++)
    g_hash_table_remove (expanded, collapsed[i][0] == '/' ? collapsed[i] + 1 : collapsed[i]);
  return expanded;
}

gboolean
onyx_layout_is_open (Run *run, Group *group)
{
  if (group->members != NULL)
    return onyx_layout_stack_shown (run, group) != NULL && g_hash_table_contains (run->expanded, group->path);
  if (g_hash_table_contains (run->expanded, group->path))
    return TRUE;
  /* In a folded stack, a group is open when its twin in any member is. */
  if (group->twins != NULL && onyx_layout_stack_shown (run, group->stack) != NULL)
    for (guint m = 0; m < group->twins->len; m++)
      if (g_hash_table_contains (run->expanded, ((Group *) group->twins->pdata[m])->path))
        return TRUE;
  return FALSE;
}

void
onyx_layout_expansion_signature (Run *run, Group *group, GString *out)
{
  g_autoptr (GPtrArray) visible = onyx_layout_visible_subgroups (run, group);

  for (guint i = 0; i < visible->len; i++)
    {
      Group *sub = visible->pdata[i];
      if (!onyx_layout_is_open (run, sub))
        continue;
      g_string_append_printf (out, "+%s", sub->path);
      if (sub->members != NULL)
        g_string_append_printf (out, "=%s", onyx_layout_stack_shown (run, sub)->path);
      onyx_layout_expansion_signature (run, sub, out);
    }
}
