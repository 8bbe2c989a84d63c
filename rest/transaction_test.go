package rest

import (
	"strings"
	"testing"
)

// A transaction renders with the reference's members in its order: nonces as numbers, the
// sponsor's members only when sponsored, a post-condition's members only where its kind has them,
// a mined transaction's block and result around its status, a pending one's receipt after it.
func TestTxBody(t *testing.T) {
	t.Parallel()
	ptr := func(s string) *string { return &s }
	mined := &MinedTxFields{
		Tx_id: "0x01", Nonce: "7", Fee_rate: "180", Sender_address: "SP1", Sponsor_nonce: ptr("3"), Sponsored: true,
		Sponsor_address: ptr("SP2"), Post_condition_mode: PostConditionModeDeny,
		Post_conditions: []PostConditionFields{
			{Principal: PostConditionFieldsPrincipalPostConditionPrincipal{Type_id: "principal_origin"},
				Condition_code: "sent_equal_to", Amount: ptr("5"), Type: "stx"},
			{Principal: PostConditionFieldsPrincipalPostConditionPrincipal{Type_id: "principal_contract", Address: ptr("SP3"), Contract_name: ptr("c")},
				Condition_code: "sent", Type: "non_fungible",
				Asset_value: &PostConditionFieldsAsset_valueClarityValue{Hex: "0x01", Repr: "u1"},
				Asset:       &PostConditionFieldsAssetPostConditionAsset{Asset_name: "n", Contract_address: "SP3", Contract_name: "c"}},
		},
		Anchor_mode: AnchorModeAny, Block_hash: "0xbb", Block_height: 2, Block_time: 10, Block_time_iso: "t", Burn_block_time: 9,
		Burn_block_height: 1, Burn_block_time_iso: "b", Parent_burn_block_time: 8, Parent_burn_block_time_iso: "p", Canonical: true,
		Tx_index: 4, Tx_status: TxStatusSuccess, Tx_result: MinedTxFieldsTx_resultClarityValue{Hex: "0x03", Repr: "true"},
		Event_count: 1, Parent_block_hash: "0xaa", Microblock_hash: "0x", Microblock_sequence: 2147483647, Microblock_canonical: true,
		Execution_cost_read_count: 1, Execution_cost_read_length: 2, Execution_cost_runtime: 3, Execution_cost_write_count: 4,
		Execution_cost_write_length: 5, Tx_type: TxTypeContractCall,
		Contract_call: &ContractCallFields{Contract_id: "SP3.c", Function_name: "f", Function_args: []ContractCallFieldsFunction_argsFunctionArg{}},
	}
	burn := txEvent{Typename: "StxAssetEvent", eventHead: eventHead{EventIndex: 0, EventType: EventTypeStxAsset, TxID: "0x01"},
		Asset: eventAsset{AssetEventType: AssetEventTypeBurn, Sender: "SP1", Amount: "5"}}
	b, err := minedTxBody(mined, []txEvent{burn})
	if err != nil {
		t.Fatal(err)
	}
	wantTxJSON(t, b, `{"tx_id":"0x01","nonce":7,"fee_rate":"180","sender_address":"SP1","sponsor_nonce":3,"sponsored":true,`+
		`"sponsor_address":"SP2","post_condition_mode":"deny","post_conditions":[`+
		`{"principal":{"type_id":"principal_origin"},"condition_code":"sent_equal_to","amount":"5","type":"stx"},`+
		`{"principal":{"type_id":"principal_contract","address":"SP3","contract_name":"c"},"condition_code":"sent","type":"non_fungible",`+
		`"asset_value":{"hex":"0x01","repr":"u1"},"asset":{"asset_name":"n","contract_address":"SP3","contract_name":"c"}}],`+
		`"anchor_mode":"any","block_hash":"0xbb","block_height":2,"block_time":10,"block_time_iso":"t","burn_block_time":9,`+
		`"burn_block_height":1,"burn_block_time_iso":"b","parent_burn_block_time":8,"parent_burn_block_time_iso":"p","canonical":true,`+
		`"tx_index":4,"tx_status":"success","tx_result":{"hex":"0x03","repr":"true"},"event_count":1,"parent_block_hash":"0xaa",`+
		`"is_unanchored":false,"microblock_hash":"0x","microblock_sequence":2147483647,"microblock_canonical":true,`+
		`"execution_cost_read_count":1,"execution_cost_read_length":2,"execution_cost_runtime":3,"execution_cost_write_count":4,`+
		`"execution_cost_write_length":5,"vm_error":null,"events":[{"event_index":0,"event_type":"stx_asset","tx_id":"0x01",`+
		`"asset":{"asset_event_type":"burn","sender":"SP1","recipient":"","amount":"5"}}],"tx_type":"contract_call",`+
		`"contract_call":{"contract_id":"SP3.c","function_name":"f","function_signature":"","function_args":[]}}`)

	pending := &MempoolTxFields{
		Tx_id: "0x02", Nonce: "0", Fee_rate: "1", Sender_address: "SP1", Post_condition_mode: PostConditionModeDeny,
		Post_conditions: []PostConditionFields{}, Anchor_mode: AnchorModeAny, Tx_status: TxStatusPending,
		Receipt_time: 5, Receipt_time_iso: "r", Tx_type: TxTypeCoinbase, Coinbase_payload: &CoinbaseFields{Data: "0x00"},
	}
	wantTxJSON(t, pendingTxBody(pending), `{"tx_id":"0x02","nonce":0,"fee_rate":"1","sender_address":"SP1","sponsored":false,`+
		`"post_condition_mode":"deny","post_conditions":[],"anchor_mode":"any","tx_status":"pending","replaced_by_tx_id":null,`+
		`"receipt_time":5,"receipt_time_iso":"r","tx_type":"coinbase","coinbase_payload":{"data":"0x00","alt_recipient":null}}`)

	// Arguments the operation skipped (exclude_function_args) are left out; none is [].
	mined.Contract_call.Function_args = nil
	b, err = minedTxBody(mined, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshal(b.ContractCall)
	if want := `{"contract_id":"SP3.c","function_name":"f","function_signature":""}`; err != nil || string(got) != want {
		t.Errorf("contract call without arguments: %s (%v), want %s", got, err, want)
	}
	if got, err := marshal(b.Events); err != nil || string(got) != "[]" {
		t.Errorf("no events: %s (%v), want []", got, err)
	}
}

// A missing counterpart (the sender of a mint, the recipient of a burn) renders as "", for STX,
// FT and NFT transfers alike, as the reference serializes it.
func TestTxWithTransfersMissingCounterpart(t *testing.T) {
	t.Parallel()
	ptr := func(s string) *string { return &s }
	var r AccountTransactionsWithTransfersAccountPageTransactionsWithTransfersPageResultsTransactionWithTransfers
	r.Tx = MinedTxFields{Nonce: "1"}
	r.Stx_transfers = []AccountTransactionsWithTransfersAccountPageTransactionsWithTransfersPageResultsTransactionWithTransfersStx_transfersStxTransfer{
		{Amount: "1", Recipient: ptr("SP1")}}
	r.Ft_transfers = []AccountTransactionsWithTransfersAccountPageTransactionsWithTransfersPageResultsTransactionWithTransfersFt_transfersFtTransfer{
		{Amount: "2", Asset_identifier: "a::b", Sender: ptr("SP1")}}
	r.Nft_transfers = []AccountTransactionsWithTransfersAccountPageTransactionsWithTransfersPageResultsTransactionWithTransfersNft_transfersNftTransfer{
		{Asset_identifier: "a::c", Sender: ptr("SP1")}, {Asset_identifier: "a::c", Recipient: ptr("SP2")}}
	r.Nft_transfers[0].Value.Hex, r.Nft_transfers[0].Value.Repr = "0x01", "u1"
	b, err := txWithTransfers(&r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `"stx_transfers":[{"amount":"1","sender":"","recipient":"SP1"}],` +
		`"ft_transfers":[{"amount":"2","asset_identifier":"a::b","sender":"SP1","recipient":""}],` +
		`"nft_transfers":[{"value":{"hex":"0x01","repr":"u1"},"asset_identifier":"a::c","sender":"SP1","recipient":""},` +
		`{"value":{"hex":"","repr":""},"asset_identifier":"a::c","sender":"","recipient":"SP2"}]}`
	if !strings.HasSuffix(string(got), want) {
		t.Errorf("transfers:\n got %s\nwant …%s", got, want)
	}
}

func wantTxJSON(t *testing.T, b txBody, want string) {
	t.Helper()
	got, err := marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("transaction:\n got %s\nwant %s", got, want)
	}
}
