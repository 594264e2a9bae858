module.exports = {
  displayName: 'recommender',
  preset: '../../jest.preset.js',
};
