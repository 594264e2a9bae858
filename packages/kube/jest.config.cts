module.exports = {
  displayName: 'kube',
  preset: '../../jest.preset.js',
};
