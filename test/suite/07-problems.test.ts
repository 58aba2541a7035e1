import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, allTabs, closeAllEditors, poll, say, wsUri } from './helpers';

/** The part of the extension's API this suite reads (src/extension/extension.ts problemPanels). */
type PanelState =
  | { file: string; kind: 'problem'; title: string; contacts: number; unknowns: number; rank: number; solvers: { solver: string; status: string }[] }
  | { file: string; kind: 'error'; message: string };
interface ProblemApi {
  problemPanels(): Promise<PanelState[]>;
}

const customTab = (viewType: string, uri: vscode.Uri) =>
  allTabs().find((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === viewType && t.input.uri.toString() === uri.toString());

/** Opens `uri` with the custom editor `viewType` (openWith never settles while no provider answers: not awaited alone). */
async function openWith(uri: vscode.Uri, viewType: string): Promise<void> {
  let openError: unknown;
  void Promise.resolve(vscode.commands.executeCommand('vscode.openWith', uri, viewType)).catch((e) => {
    openError = e;
  });
  await poll(
    () => {
      if (openError) throw openError;
      return customTab(viewType, uri);
    },
    `a ${viewType} tab for ${uri.path}`,
    20_000,
  );
}

async function panelFor(api: ProblemApi, file: string): Promise<PanelState> {
  return poll(async () => (await api.problemPanels()).find((p) => p.file === file), `a problem panel for ${file}`, 60_000);
}

suite('problem files in the inspector', () => {
  let api: ProblemApi;
  suiteSetup(async () => {
    api = (await activeExtension()).exports as unknown as ProblemApi;
    await closeAllEditors();
  });
  teardown(closeAllEditors);

  test('the FCLIB file (HDF5) opens in contactLens.fclibProblem: Boxes Stack, 48 contacts, 144 unknowns, rank 72, every solver', async () => {
    const uri = wsUri('problems/fclib-boxes-stack.hdf5');
    await openWith(uri, 'contactLens.fclibProblem');
    const p = await panelFor(api, 'fclib-boxes-stack.hdf5');
    assert.equal(p.kind, 'problem', JSON.stringify(p));
    if (p.kind !== 'problem') return;
    say(`      ${p.title}: ${p.contacts} contacts, ${p.unknowns} unknowns, rank ${p.rank}; ${p.solvers.map((s) => `${s.solver} ${s.status}`).join(', ')}`);
    assert.deepEqual([p.title, p.contacts, p.unknowns, p.rank], ['Boxes Stack', 48, 144, 72]);
    assert.deepEqual(
      p.solvers.map((s) => s.solver),
      ['pgs', 'newton', 'ipm', 'coulomb'],
    );
    assert.equal(p.solvers.find((s) => s.solver === 'coulomb')!.status, 'converged');
  });

  test('a JSON problem opens through “Open Problem File in Inspector…” whatever its name', async () => {
    const uri = wsUri('problems/two-box-stack.json');
    await vscode.commands.executeCommand('contactLens.openProblem', uri);
    await poll(() => customTab('contactLens.problem', uri), 'a contactLens.problem tab for two-box-stack.json', 20_000);
    const p = await panelFor(api, 'two-box-stack.json');
    assert.equal(p.kind, 'problem', JSON.stringify(p));
    if (p.kind === 'problem') assert.deepEqual([p.contacts, p.unknowns], [8, 24]);
  });

  test('a corrupt HDF5 file keeps its panel open with one line naming the file, and the host keeps working', async () => {
    const uri = wsUri('problems/corrupt.hdf5');
    const good = await vscode.workspace.fs.readFile(wsUri('problems/fclib-boxes-stack.hdf5'));
    await vscode.workspace.fs.writeFile(uri, good.subarray(0, 4000));
    try {
      await openWith(uri, 'contactLens.fclibProblem');
      const p = await panelFor(api, 'corrupt.hdf5');
      assert.equal(p.kind, 'error', JSON.stringify(p));
      if (p.kind === 'error') {
        say(`      ${p.message}`);
        assert.match(p.message, /^corrupt\.hdf5: \(hdf5\): /);
        assert.ok(!p.message.includes('\n'), 'one line');
      }
      assert.ok(customTab('contactLens.fclibProblem', uri), 'the panel stays open to show the error');
    } finally {
      await closeAllEditors();
      await vscode.workspace.fs.delete(uri);
    }
  });
});
