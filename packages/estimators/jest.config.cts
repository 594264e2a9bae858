module.exports = {
  displayName: 'estimators',
  preset: '../../jest.preset.js',
};
