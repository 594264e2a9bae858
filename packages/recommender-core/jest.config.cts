module.exports = {
  displayName: 'recommender-core',
  preset: '../../jest.preset.js',
};
