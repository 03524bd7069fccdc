/* onyx-document-internal.h: what onyx-document.c (commands, the undo stack, the
 * object) and onyx-document-ops.c (the primitive changes and what they touch) share.
 * Nothing else includes it. */
#pragma once

#include "onyx-document-private.h"
#include "onyx-graph-tree.h"

G_BEGIN_DECLS

typedef enum {
  OP_REMOVE_ITEM,
  OP_INSERT_ITEM,
  OP_SET_NODE_INPUT,
  OP_ADD_NODE_INPUT,
  OP_SET_NODE_OUTPUT,
  OP_SET_NODE_NAME,
  OP_SET_MESSAGE_NAME,
  OP_SET_VALUE_TYPE,
  OP_SET_NODE_ORDER,
} OpKind;

/* One primitive change. `applied` says which side of it the model is on, and so
 * which of the old/new things the op owns (the one not in the model). */
typedef struct {
  OpKind kind;
  gboolean applied;
  /* The main-graph node it touches (or that holds the subgraph it changes); NULL when
   * it changes the whole model: graph lists, order, opsets, functions, or a subgraph
   * whose holder is gone. */
  Onnx__NodeProto *touched;
  Onnx__GraphProto *graph;            /* whose nodes or lists it changes, or NULL */
  gboolean rereads;                   /* it may change what `graph` reads from outside */
  ProtobufCMessage *owner;            /* message holding the field or named */
  const ProtobufCFieldDescriptor *field;
  gsize position;                     /* element index, or input/output slot */
  ProtobufCMessage **items;           /* removed/inserted elements, a run from `position` */
  gsize n_items;
  char *old_text, *new_text;          /* names */
  ProtobufCMessage *old_message, *new_message; /* types */
  Onnx__NodeProto **old_order, **new_order;
} Op;

typedef struct {
  char *label;
  GPtrArray *ops;     /* Op*, in the order they were applied */
  GPtrArray *replay;  /* GStrv: the edits that made it, as onyx_edit_replay takes them */
  OnyxChange change;  /* what its ops touched, worked out when it is pushed */
} Command;

struct _OnyxDocument {
  GObject parent_instance;

  OnyxModel *model;
  OnyxGraphTree *tree;
  OnyxGraphIndex *index; /* the main graph's, in the tree */
  GPtrArray *commands;   /* Command*, the first `n_applied` are applied */
  guint n_applied;
  gint saved_at;         /* n_applied at the last save; -1 when that state is gone */
  Command *recording;
  guint command_start;   /* ops of `recording` before the current edit's */
  guint replay_start;    /* and its replay entries */
  guint group_depth;
  char *group_label;
  guint64 revision;      /* counts primitive changes, undone ones too */
  guint frozen;          /* readers in other threads (a save): no change until thawed */
  /* A subgraph changed by many steps in a row (onyx_document_begin_subgraph_batch):
   * the nodes holding it were taken out of their indexes once, for all of them. */
  Onnx__GraphProto *batched_graph;
};

/* onyx-document-ops.c */
/* Applies (forward) or undoes an op, keeping the graph tree and indexes current. */
void onyx_document_op_apply        (OnyxDocument *self, Op *op, gboolean forward);
/* Frees an op and whatever of the model it owns (the side not in the model). */
void onyx_document_op_free         (OnyxDocument *self, Op *op);
/* What a command's ops touched, as its OnyxChange. */
void onyx_document_work_out_change (OnyxDocument *self, Command *command);

G_END_DECLS
