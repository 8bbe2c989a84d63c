// The GraphQL operations of the explorer pages: each page runs one or two of them, and shows
// their text under its "GraphQL" toggle so that they can be copied.

const blockRow = `height hash indexBlockHash canonical blockTimeIso burnBlockHeight txCount
      microblocks { hash }`;

const mempoolRow = `txId txType senderAddress feeRate receiptTimeIso
      tokenTransfer { amount recipientAddress }
      contractCall { contractId functionName }
      smartContract { contractId }`;

export const HOME = `query Home {
  chainTip { blockHeight blockHash burnBlockHeight microblockSequence }
  blocksConnection(first: 10) {
    nodes {
      ${blockRow}
    }
  }
  mempool(first: 10) {
    totalCount
    nodes {
      ${mempoolRow}
    }
  }
}`;

export const LIVE_BLOCKS = `subscription LiveBlocks {
  blocks {
    block {
      ${blockRow}
    }
    reorg { rolledBack { height indexBlockHash } restored { height indexBlockHash } }
  }
}`;

export const LIVE_MEMPOOL = `subscription LiveMempool {
  mempoolTransactions {
    transaction {
      ${mempoolRow}
    }
    droppedTxId
  }
}`;

export const SEARCH_HASH = `query Search($id: Hex!) {
  transactionsByIds(ids: [$id], unanchored: true) { found }
  block(hash: $id) { hash }
}`;

export const BLOCK = `query Block($height: Int, $hash: Hex) {
  block(height: $height, hash: $hash) {
    height hash indexBlockHash canonical blockTimeIso tenureHeight
    burnBlockHeight burnBlockHash minerTxid txCount
    parent { height hash }
    executionCost { runtime readCount readLength writeCount writeLength }
    microblocks { hash sequence microblockCanonical transactions { txId } }
    microblocksStreamed { hash sequence microblockCanonical }
    transactions(first: 50) {
      totalCount
      nodes {
        txId txIndex txType txStatus feeRate senderAddress microblockSequence
        tokenTransfer { amount recipientAddress }
        contractCall { contractId functionName }
        smartContract { contractId }
      }
    }
  }
}`;

const payloads = `tokenTransfer { recipientAddress amount memo }
      contractCall { contractId functionName functionArgs { name type repr } }
      smartContract { contractId clarityVersion }
      coinbasePayload { data }
      tenureChangePayload { cause }
      postConditionMode
      postConditions {
        type conditionCode amount
        principal { typeId address contractName }
        asset { contractAddress contractName assetName }
        assetValue { repr }
      }`;

export const TRANSACTION = `query Transaction($id: Hex!) {
  transactionsByIds(ids: [$id], unanchored: true) {
    found
    result {
      __typename
      ... on Transaction {
        txId txType txStatus canonical microblockCanonical isUnanchored
        blockHeight blockHash blockTimeIso txIndex microblockSequence microblockHash
        feeRate nonce senderAddress sponsored sponsorAddress anchorMode
        txResult { repr }
        vmError
        ${payloads}
        eventCount
        events(limit: 50) {
          eventIndex eventType
          ... on StxAssetEvent { asset { assetEventType amount sender recipient } }
          ... on FungibleTokenAssetEvent { asset { assetEventType assetId amount sender recipient } }
          ... on NonFungibleTokenAssetEvent { asset { assetEventType assetId sender recipient value { repr } } }
          ... on SmartContractLogEvent { contractLog { contractId topic value { repr } } }
          ... on StxLockEvent { stxLockEvent { lockedAmount unlockHeight lockedAddress } }
        }
      }
      ... on MempoolTransaction {
        txId txType txStatus receiptTimeIso feeRate nonce senderAddress
        sponsored sponsorAddress anchorMode replacedByTxId
        ${payloads}
      }
    }
  }
}`;

export const ACCOUNT = `query Account($principal: String!, $first: Int, $after: String, $last: Int, $before: String) {
  account(principal: $principal) {
    principal
    stxBalance {
      balance locked lockTxId lockHeight burnchainUnlockHeight
      totalReceived totalSent totalFeesSent totalMinerRewardsReceived
    }
    nonces { possibleNextNonce }
    balanceHistory(points: 120) { blockHeight balance changedAtHeight }
    transactions(first: $first, after: $after, last: $last, before: $before) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      nodes {
        txId txType txStatus blockHeight blockTimeIso feeRate senderAddress
        events(limit: 10) {
          ... on StxAssetEvent { asset { assetEventType amount sender recipient } }
          ... on FungibleTokenAssetEvent { asset { assetEventType assetId amount sender recipient } }
          ... on NonFungibleTokenAssetEvent { asset { assetEventType assetId sender recipient value { repr } } }
        }
      }
    }
  }
}`;

export const BRC20_TOKENS = `query Brc20Tokens {
  brc20Tokens(first: 50) {
    totalCount
    nodes { ticker displayTicker maxSupply mintedSupply holderCount txCount blockHeight }
  }
}`;

export const BRC20_TOKEN = `query Brc20Token($ticker: String!) {
  brc20Token(ticker: $ticker) {
    ticker displayTicker id number address blockHeight txId deployTimestamp
    maxSupply mintedSupply mintLimit decimals selfMint holderCount txCount
    holders(first: 20) {
      totalCount
      nodes { address overallBalance availableBalance transferrableBalance }
    }
  }
  brc20Activity(tickers: [$ticker], first: 20) {
    totalCount
    nodes { operation amount address fromAddress toAddress blockHeight txId timestamp }
  }
}`;
