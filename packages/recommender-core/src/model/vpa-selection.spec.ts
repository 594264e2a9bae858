import { vpaObject } from './model.fixtures.js';
import { vpaSelection } from './vpa-selection.js';

describe('vpaSelection', () => {
  const plain = vpaObject('plain');
  const named = vpaObject('named', { recommenders: ['default'] });
  const custom = vpaObject('custom', { recommenders: ['fast'] });
  const elsewhere = vpaObject('elsewhere', { namespace: 'kube-system' });
  const all = [plain, named, custom, elsewhere];

  it('gives the default recommender VPAs naming no recommender or naming it', () => {
    expect(vpaSelection(all, { recommenderName: 'default' })).toEqual([
      plain,
      named,
      elsewhere,
    ]);
  });

  it('gives a custom recommender only the VPAs naming it', () => {
    expect(vpaSelection(all, { recommenderName: 'fast' })).toEqual([custom]);
  });

  it('filters by namespace and ignored namespaces', () => {
    expect(
      vpaSelection(all, {
        recommenderName: 'default',
        namespace: 'kube-system',
      }),
    ).toEqual([elsewhere]);
    expect(
      vpaSelection(all, {
        recommenderName: 'default',
        ignoredNamespaces: ['kube-system'],
      }),
    ).toEqual([plain, named]);
  });
});
