// GraphiQL as stxgraph serves it: queries over HTTP and subscriptions over graphql-ws, both on
// /graphql of the serving host, with the explorer plugin and the example tabs the page carries.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import { getOperationAST, parse } from 'graphql';
import 'graphiql/graphiql.css';
import '@graphiql/plugin-explorer/dist/style.css';

const page = document.getElementById('graphiql');
const endpoint = new URL(page.dataset.endpoint || '/graphql', window.location.href);
const wsEndpoint = new URL(endpoint);
wsEndpoint.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';

// Subscriptions go over graphql-ws, everything else over HTTP. The operation kind is read from
// the request itself, so it does not depend on the editor having parsed the document yet.
const http = createGraphiQLFetcher({ url: endpoint.href });
const ws = createClient({ url: wsEndpoint.href, lazy: true, retryAttempts: 3 });

// operation returns the request with its operation name fixed, and whether it subscribes. A
// tab can carry the operation name of the tab shown before it; when the document holds one
// operation, that one is meant.
function operation(params) {
  try {
    const doc = parse(params.query);
    let op = getOperationAST(doc, params.operationName || undefined);
    if (!op) {
      op = getOperationAST(doc);
      if (op) params = { ...params, operationName: op.name ? op.name.value : undefined };
    }
    return [params, op?.operation === 'subscription'];
  } catch {
    return [params, false]; // an invalid document goes to the server, which explains the error
  }
}

const fetcher = (request, opts) => {
  const [params, subscription] = operation(request);
  return subscription ? ws.iterate(params) : http(params, opts);
};

// The examples the server lists open as tabs; a query in the URL (?query=…) opens first, so a
// query can be shared as a link.
const examples = JSON.parse(document.getElementById('graphiql-examples').textContent);
const params = new URLSearchParams(window.location.search);
const tabs = examples.map((e) => ({ query: e.query, variables: e.variables || undefined }));
if (params.get('query')) {
  tabs.unshift({ query: params.get('query'), variables: params.get('variables') || undefined });
}

const explorer = explorerPlugin({ showAttribution: false });

createRoot(page).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultTabs: tabs,
    plugins: [explorer],
    defaultEditorToolsVisibility: true,
    isHeadersEditorEnabled: true,
  }),
);
