// GraphiQL as stxgraph serves it: queries over HTTP and subscriptions over graphql-ws, both on
// /graphql of the serving host, with the explorer plugin and the example tabs the page carries.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import 'graphiql/graphiql.css';
import '@graphiql/plugin-explorer/dist/style.css';

const page = document.getElementById('graphiql');
const endpoint = new URL(page.dataset.endpoint || '/graphql', window.location.href);
const wsEndpoint = new URL(endpoint);
wsEndpoint.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';

const fetcher = createGraphiQLFetcher({
  url: endpoint.href,
  wsClient: createClient({ url: wsEndpoint.href, lazy: true, retryAttempts: 3 }),
});

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
