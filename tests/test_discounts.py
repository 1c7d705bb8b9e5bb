"""Discounts (issue 15, item 6): a small file takes a Savings Plan's or an EDP's share off every cost
figure shown, marked, while the simulated Karpenter keeps choosing by list price."""

import json

import pytest

from karptui.catalog.discounts import Discounts, load_discounts
from karptui.errors import InputError
from tests.test_karpenter_provisioning import nodepool
from tests.simkit import node, pod

CATALOG = ("instanceTypes:\n"
           "- name: m5.large\n  cpu: 2\n  memory: 8Gi\n"
           "  offerings: [{zone: us-east-1a, capacityType: on-demand, price: 0.1}]\n"
           "- name: c6i.large\n  cpu: 2\n  memory: 4Gi\n"
           "  offerings: [{zone: us-east-1a, capacityType: on-demand, price: 0.09}]\n")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_family_rate_overrides_the_overall_one(tmp_path):
    path = write(tmp_path, "d.yaml", "discounts:\n  overall: 0.1\n  families: {m5: 0.28, c6i: '20%'}\n")
    d = load_discounts(path)
    assert (d.rate("m5.large"), d.rate("c6i.xlarge"), d.rate("r7g.large")) == (0.28, 0.2, 0.1)
    assert d.apply(1.0, "m5.large") == pytest.approx(0.72)
    assert d.describe() == "10% overall, c6i 20%, m5 28%"


@pytest.mark.parametrize("text,fragment", [
    ("discounts: {overall: 1.5}\n", "discounts.overall: 1.5 is not a discount"),
    ("discounts: {overall: -0.1}\n", "discounts.overall: -0.1 is not a discount"),
    ("discounts: {families: {m5: lots}}\n", "discounts.families.m5: 'lots' is not a discount"),
    ("discounts: {families: {m5.large: 0.2}}\n", "'m5.large' is not an instance family"),
    ("discounts: {overal: 0.2}\n", "discounts: unknown field 'overal'"),
    ('discounts: {families: {"m5\\e]52;c;SGVsbG8=\\a": 0.2}}\n', "'m5\\x1b]52;c;SGVsbG8=\\x07' is not an instance family"),
    ('discounts: {families: {"c5\\e]0;pwned\\a": 0.2}}\n', "is not an instance family"),
    ("discounts: {families: {M5: 0.2}}\n", "'M5' is not an instance family"),
    ("overall: 0.2\n", "expected a map with a discounts map"),
])
def test_a_bad_discounts_file_is_one_line_naming_the_file(tmp_path, text, fragment):
    path = write(tmp_path, "d.yaml", text)
    with pytest.raises(InputError) as raised:
        load_discounts(path)
    assert str(raised.value).startswith(f"{path}: ") and fragment in str(raised.value)


def test_a_table_line_the_document_does_not_hold_is_made_visible_too(capsys):
    """The cost line reached stdout without the document's visible() pass (issue 29, item 14)."""
    from karptui.cli.output import table_console

    table_console().print("cost: m5\x1b]52;c;SGVsbG8=\x07 20%")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "m5" in out


def cluster(tmp_path):
    objects = [node("ip-1", labels={"node.kubernetes.io/instance-type": "m5.large",
                                    "karpenter.sh/capacity-type": "on-demand"}),
               nodepool("default"), pod("web", cpu="1500m", nodeSelector={"team": "x"})]
    objects[1]["spec"]["template"]["metadata"]["labels"] = {"team": "x"}
    return write(tmp_path, "c.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))


def test_simulate_shows_costs_after_discount_and_karpenter_still_picks_by_list_price(tmp_path, cli):
    snapshot, catalog = cluster(tmp_path), write(tmp_path, "cat.yaml", CATALOG)
    # 50% off m5 makes m5.large the cheaper after discount; Karpenter still launches c6i.large, the list-cheapest
    discounts = write(tmp_path, "d.yaml", "discounts:\n  families: {m5: 0.5}\n")
    code, out, err = cli("simulate", snapshot, "--instance-types", catalog, "-o", "json")
    plain = json.loads(out)
    code, out, err = cli("simulate", snapshot, "--instance-types", catalog, "--discounts", discounts, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    (claim,) = doc["nodeclaims"]
    assert claim["launch"]["instance_type"] == plain["nodeclaims"][0]["launch"]["instance_type"] == "c6i.large"
    assert claim["launch"]["price"] == 0.09 and "price_after_discount" not in claim["launch"]  # c6i: no discount
    cost = doc["summary"]["cost"]
    assert cost["now"] == {"hourly": 0.05, "monthly": 36.5, "estimated": False, "unpriced": 0,
                           "estimated_prices": 0, "discounted": True}
    assert cost["after_provisioning"]["hourly"] == pytest.approx(0.14) and cost["discount"] == "m5 50%"
    assert plain["summary"]["cost"]["now"]["hourly"] == 0.1 and "discounted" not in plain["summary"]["cost"]["now"]
    code, out, err = cli("simulate", snapshot, "--instance-types", catalog, "--discounts", discounts)
    assert "cost: now $0.050/h* ($36/mo*) -> after provisioning $0.140/h* ($102/mo*) (*: after discount (m5 50%))" \
        in " ".join(out.split())


def test_the_discounts_file_in_the_config_dir_is_used_by_default(tmp_path, cli, monkeypatch):
    config = tmp_path / "config"
    config.mkdir()
    write(config, "discounts.yaml", "discounts: {overall: 0.5}\n")
    monkeypatch.setenv("KARPTUI_CONFIG_DIR", str(config))
    code, out, err = cli("simulate", cluster(tmp_path), "--instance-types", write(tmp_path, "cat.yaml", CATALOG),
                         "-o", "json")
    (claim,) = json.loads(out)["nodeclaims"]
    assert claim["launch"]["price_after_discount"] == 0.045 and json.loads(out)["summary"]["cost"]["discount"] == \
        "50% overall"


def test_a_bad_discounts_file_exits_2_with_one_line(tmp_path, cli):
    bad = write(tmp_path, "d.yaml", "discounts: {overall: 2}\n")
    code, out, err = cli("simulate", cluster(tmp_path), "--discounts", bad)
    assert code == 2 and err.count("\n") == 1 and str(bad) in err and "Traceback" not in err
    code, out, err = cli("demo", "--discounts", tmp_path / "missing.yaml")
    assert code == 2 and "missing.yaml" in err and err.count("\n") == 1


async def test_the_tui_header_and_nodes_pane_mark_discounted_prices():
    from textual.widgets import Static

    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.tui.app import KarptuiApp
    from karptui.tui.widgets import VirtualTable

    app = KarptuiApp(load_snapshot(bundled_snapshot("consolidation")), discounts=Discounts(0.25))
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        header = " ".join(str(app.screen.query_one("#source", Static).render()).split())
        table = app.screen.query_one("#nodes-table", VirtualTable)
        column = [str(c) for c in table.columns].index("$/h")
        prices = [table.row(k)[column] for k in table.keys if k.startswith("node:")]
        assert any(p != "-" for p in prices) and all(p.endswith("*") for p in prices if p != "-")
        assert "(*: after discount (25% overall))" in header


def test_header_simulate_and_whatif_agree_after_discount_and_consolidation_is_unchanged():
    from datetime import datetime, timezone

    from karptui.catalog import catalog_from_snapshot_region
    from karptui.sim import simulate
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.views.cost import cost_now, cost_path
    from karptui.views.overview import overview
    from karptui.views.whatif_form import run_whatif
    from karptui.views.whatif_summary import summary_lines
    from karptui.whatif import WhatIf

    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    plain = catalog_from_snapshot_region(snapshot)
    catalog = plain.with_discounts(Discounts(0.2))
    before = simulate(snapshot, catalog=plain, consolidate=True)
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    assert [(d.action, d.nodes, d.savings) for d in result.disruptions] == \
        [(d.action, d.nodes, d.savings) for d in before.disruptions] and result.disruptions
    path, list_path = cost_path(result, catalog, consolidated=True), cost_path(before, plain, consolidated=True)
    for (_, after), (_, listed) in zip(path.steps(), list_path.steps()):
        assert after.discounted and after.hourly == pytest.approx(listed.hourly * 0.8)
    header = overview(snapshot, catalog, [], datetime(2024, 1, 1, tzinfo=timezone.utc))
    assert header.cost == path.now == cost_now(snapshot.nodes, catalog)
    panel = run_whatif(snapshot, catalog, WhatIf("nothing", ()))
    assert panel["cost_after"] == pytest.approx(path.final.hourly)
    (line,) = [x for x in summary_lines(panel) if x.startswith("cost now")]
    assert line.endswith("(*: after discount (20% overall))") and line.count("*") == 5  # 4 figures, the legend


def test_a_table_line_prints_emoji_codes_as_written(capsys):
    """Rich turns ``:fire:`` into an emoji even with markup off; text from a cluster or a user's
    file is printed as it is."""
    from karptui.cli.output import table_console

    table_console().print("cost: family :fire: and :thumbs_up:")
    assert "family :fire: and :thumbs_up:" in capsys.readouterr().out
